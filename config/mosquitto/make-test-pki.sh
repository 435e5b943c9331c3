#!/usr/bin/env bash
# Make a TEST certificate authority, broker certificate, client certificates, a revocation
# list and a mosquitto password file, laid out as the CONF_DIR that mosquitto.conf expects.
# Test and demo use only: the CA key sits next to everything else, the passwords are random
# and written in clear to test-passwords. docs/security.md says how to do this for a site.
#
# Usage: make-test-pki.sh OUT_DIR [SAN_IP ...]
#   OUT_DIR must not exist yet (nothing is ever overwritten).
#   The broker certificate is valid for DNS:localhost, IP:127.0.0.1, IP:127.0.0.2 and each
#   SAN_IP given.
#
# Produces (paths relative to OUT_DIR):
#   certs/ca.crt certs/server.crt certs/server.key certs/crl.pem   what the broker reads
#   passwd                                    mosquitto_passwd file (PBKDF2-SHA512, $7$)
#   test-passwords                            "user password" lines, one per password user
#   clients/holecards.{crt,key}               CN=holecards, signed by the CA (mTLS login)
#   clients/revoked-holecards.{crt,key}       CN=holecards, signed by the CA, listed in crl.pem
#   clients/rogue-holecards.{crt,key}         CN=holecards, signed by another CA (rogue-ca.crt)
#   ca/                                       the CA's key and database (keep offline for real)
# Needs: openssl, mosquitto_passwd (Debian package "mosquitto").
set -euo pipefail

die() { printf 'make-test-pki.sh: %s\n' "$*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: make-test-pki.sh OUT_DIR [SAN_IP ...]"
OUT=$1; shift
[ ! -e "$OUT" ] || die "$OUT already exists; refusing to overwrite it"
command -v openssl >/dev/null 2>&1 || die "openssl is missing (apt-get install openssl)"
PASSWD_TOOL=$(command -v mosquitto_passwd 2>/dev/null || true)
[ -n "$PASSWD_TOOL" ] || die "mosquitto_passwd is missing (apt-get install mosquitto)"

SAN="DNS:localhost,IP:127.0.0.1,IP:127.0.0.2"
for ip in "$@"; do
  [[ $ip =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || die "not an IPv4 address: $ip"
  SAN="$SAN,IP:$ip"
done

# Password users: one per device, as use_username_as_clientid requires (see docs/security.md).
# holecards is deliberately absent: it can only log in with its certificate.
USERS="controller-t01 controller-t02 dealer-t01 dealer-t02 webdealer-t01 pit-01 audit-01
display-01 display-02 web-01 tournament-daily"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
umask 077
mkdir -p "$OUT/certs" "$OUT/clients" "$OUT/ca"
cd "$OUT/ca"
# openssl's chatter goes to a log that is shown only when a step fails
LOG="$OUT/ca/openssl.log"
trap 'rc=$?; [ $rc = 0 ] || { cat "$LOG" >&2; echo "make-test-pki.sh: failed" >&2; }' EXIT

# P-256 keys: as strong as RSA-3072 and much faster to make, which keeps the tests quick.
newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>>"$LOG"; }

cat > ca.cnf <<EOF
[ca]
default_ca = test_ca
[test_ca]
dir = $OUT/ca
database = \$dir/index.txt
new_certs_dir = \$dir
serial = \$dir/serial
crlnumber = \$dir/crlnumber
certificate = $OUT/certs/ca.crt
private_key = \$dir/ca.key
default_md = sha256
default_days = 30
default_crl_days = 30
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
[v3_ca]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = $SAN
[client]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
EOF
: > index.txt
echo 1000 > serial
echo 1000 > crlnumber

newkey ca.key
openssl req -x509 -new -key ca.key -out "$OUT/certs/ca.crt" -days 30 -sha256 \
  -subj "/CN=tablectl test CA" -config ca.cnf -extensions v3_ca 2>>"$LOG"

sign() {  # sign NAME CN EXTENSION KEY_OUT CRT_OUT
  local name=$1 cn=$2 ext=$3 key=$4 crt=$5
  newkey "$key"
  openssl req -new -key "$key" -out "$name.csr" -subj "/CN=$cn" 2>>"$LOG"
  openssl ca -batch -notext -config ca.cnf -extensions "$ext" -in "$name.csr" -out "$crt" \
    2>>"$LOG"
}
sign server localhost server "$OUT/certs/server.key" "$OUT/certs/server.crt"
sign holecards holecards client "$OUT/clients/holecards.key" "$OUT/clients/holecards.crt"
sign revoked holecards client "$OUT/clients/revoked-holecards.key" \
  "$OUT/clients/revoked-holecards.crt"
openssl ca -batch -config ca.cnf -revoke "$OUT/clients/revoked-holecards.crt" \
  -crl_reason keyCompromise 2>>"$LOG"
openssl ca -batch -config ca.cnf -gencrl -out "$OUT/certs/crl.pem" 2>>"$LOG"

# A certificate with the right name from a CA the broker does not trust.
newkey rogue-ca.key
openssl req -x509 -new -key rogue-ca.key -out "$OUT/clients/rogue-ca.crt" -days 30 \
  -subj "/CN=rogue CA" -config ca.cnf -extensions v3_ca 2>>"$LOG"
newkey "$OUT/clients/rogue-holecards.key"
openssl req -new -key "$OUT/clients/rogue-holecards.key" -out rogue.csr -subj "/CN=holecards" \
  2>>"$LOG"
openssl x509 -req -in rogue.csr -CA "$OUT/clients/rogue-ca.crt" -CAkey rogue-ca.key \
  -CAcreateserial -out "$OUT/clients/rogue-holecards.crt" -days 30 \
  -extfile ca.cnf -extensions client 2>>"$LOG"

# Passwords: random, stored as PBKDF2-SHA512 hashes by mosquitto_passwd.
: > "$OUT/passwd"
: > "$OUT/test-passwords"
for user in $USERS; do
  pw=$(openssl rand -hex 16)
  "$PASSWD_TOOL" -b "$OUT/passwd" "$user" "$pw"
  printf '%s %s\n' "$user" "$pw" >> "$OUT/test-passwords"
done

# The broker only needs to read certs/ and passwd; it never needs the CA key.
chmod 0644 "$OUT/certs/ca.crt" "$OUT/certs/server.crt" "$OUT/certs/crl.pem"
chmod 0755 "$OUT" "$OUT/certs"
printf 'made test PKI and password file in %s\n' "$OUT" >&2
