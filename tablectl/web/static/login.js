"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const params = new URLSearchParams(location.search);
  document.getElementById("next").value = params.get("next") || "";
  document.getElementById("login-error").hidden = params.get("error") !== "1";
  document.getElementById("login-locked").hidden = params.get("error") !== "2";
});
