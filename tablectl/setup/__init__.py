"""Set-up tools of a table, run before it deals: deck registration (:mod:`.register`), deck
verification (:mod:`.verify`) and antenna calibration (:mod:`.calibrate`), each a sans-IO
core, driven from a reader and a dialogue with the dealer by :mod:`.runners` over
:mod:`.dialogue`."""
