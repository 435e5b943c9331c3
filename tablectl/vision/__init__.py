"""OpenCV card recognition; the only tablectl package that imports cv2 (lazily)."""
