# Sourced by .ci/test and .ci/tablectl: make the project's virtual environment, on a fresh
# machine too. Installs exactly the pinned versions of .ci/constraints.txt.
# Nothing here is needed again once .venv is up to date (a stamp records what it was built from).

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$ROOT/.venv"
CONSTRAINTS="$ROOT/.ci/constraints.txt"

say() { printf '%s\n' "$*" >&2; }

is_root() { [ "$(id -u)" = 0 ]; }

apt_install() {
  # apt_install PACKAGE... : install Debian packages when root, else say exactly what to run.
  if is_root && command -v apt-get >/dev/null 2>&1; then
    say "installing $* with apt-get"
    if [ ! -f "$ROOT/.venv/.apt-updated" ] && [ ! -f /tmp/.tablectl-apt-updated ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
      touch /tmp/.tablectl-apt-updated
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  else
    say "missing: $*. Install it with: sudo apt-get install $*"
    exit 1
  fi
}

find_python() {
  for py in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$py" ] || continue
    if command -v "$py" >/dev/null 2>&1 \
       && "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      command -v "$py"; return 0
    fi
  done
  say "tablectl needs Python >= 3.11: install it (Debian/Ubuntu: sudo apt-get install python3)"
  exit 1
}

ensure_venv() {
  # ensure_venv EXTRAS : .venv with the project installed editable, pinned by constraints.
  local extras="$1" stamp want
  want=$(cat "$ROOT/pyproject.toml" "$CONSTRAINTS" | sha256sum | cut -c1-16)-$extras
  stamp="$VENV/.tablectl-stamp"
  if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  local py; py=$(find_python)
  if [ ! -x "$VENV/bin/python" ]; then
    if ! "$py" -m venv "$VENV" >/dev/null 2>&1; then
      rm -rf "$VENV"
      local ver; ver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
      apt_install "python${ver}-venv"
      "$py" -m venv "$VENV"
    fi
  fi
  # one line while it works; pip's and setuptools' own output goes to a log, shown only if
  # the install fails
  local log="$VENV/.tablectl-install.log"
  say "installing tablectl and its pinned dependencies into .venv (once, about a minute)"
  if ! { "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip \
         && PIP_CONSTRAINT="$CONSTRAINTS" "$VENV/bin/python" -m pip install -q --no-compile \
              --disable-pip-version-check -c "$CONSTRAINTS" -e "$ROOT[$extras]"; } \
       >"$log" 2>&1; then
    cat "$log" >&2
    say "installing into .venv failed (the output above is in $log)"
    exit 1
  fi
  echo "$want" > "$stamp"
}

find_mosquitto() {
  for m in "${MOSQUITTO:-}" "$(command -v mosquitto 2>/dev/null || true)" /usr/sbin/mosquitto; do
    if [ -n "$m" ] && [ -x "$m" ]; then echo "$m"; return 0; fi
  done
  return 1
}

ensure_mosquitto() {
  # Tests start private brokers from this binary on free ports; they never touch a running one.
  if ! find_mosquitto >/dev/null; then
    apt_install mosquitto
  fi
  # the tests' certificate script uses openssl
  command -v openssl >/dev/null 2>&1 || apt_install openssl
  MOSQUITTO=$(find_mosquitto); export MOSQUITTO
}

ensure_chromium() {
  # The browser tests (tests/web) drive Debian's chromium through Playwright's bundled driver;
  # no browser is ever downloaded (never run `playwright install`).
  if [ -z "${CHROMIUM:-}" ]; then
    if command -v chromium >/dev/null 2>&1; then CHROMIUM=$(command -v chromium)
    else apt_install chromium; CHROMIUM=/usr/bin/chromium; fi
  fi
  export CHROMIUM
}

ensure_firmware_toolchains() {
  # tests/firmware_reference build the reference reader firmware: for the host with gcc and
  # make (ASan/UBSan), and for a Cortex-M3 with Debian's arm-none-eabi toolchain and newlib,
  # run in qemu-system-arm. Without root a missing tool makes those tests skip, with the reason.
  local missing=()
  command -v gcc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
  command -v make >/dev/null 2>&1 || missing+=(make)
  command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing+=(gcc-arm-none-eabi)
  [ -f /usr/lib/arm-none-eabi/newlib/libc_nano.a ] || missing+=(libnewlib-arm-none-eabi)
  command -v qemu-system-arm >/dev/null 2>&1 || missing+=(qemu-system-arm)
  [ ${#missing[@]} -eq 0 ] && return 0
  if is_root; then apt_install "${missing[@]}"; else say "missing ${missing[*]}: firmware tests skipped"; fi
}

ensure_systemd_analyze() {
  # tests/ops verify the shipped systemd units with systemd-analyze (Debian's systemd package);
  # without root the tests that need it are skipped, with the reason
  command -v systemd-analyze >/dev/null 2>&1 && return 0
  if is_root; then apt_install systemd; else say "systemd-analyze missing: unit checks skipped"; fi
}

ensure_postgres() {
  # The floor tests (tests/floor) create and drop their own databases in the PostgreSQL at
  # 127.0.0.1:5432 (trust authentication for the user postgres), which this project's machines
  # run as a service. Start it if it is installed but down; otherwise say what is missing.
  if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then return 0; fi
  if is_root && command -v service >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    say "starting postgresql"
    service postgresql start >/dev/null 2>&1 || true
    for _ in $(seq 1 30); do
      if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then return 0; fi
      sleep 1
    done
  fi
  say "PostgreSQL is not reachable at 127.0.0.1:5432: the floor tests need it (Debian:"
  say "apt-get install postgresql, and trust authentication for the user postgres on 127.0.0.1)"
  exit 1
}
