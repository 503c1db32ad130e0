// The admin's login: the table's api_key, exchanged for a session cookie.
"use strict";

document.getElementById("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { status, body } = await postJSON("/api/admin/login", { key: document.getElementById("key").value });
  if (status === 200) location.reload();
  else document.getElementById("message").textContent = body.error || String(status);
});
(async () => { await loadInfo(); applyWords(); })();
