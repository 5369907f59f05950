# Shell view of mk/versions.mk, which stays the one place the versions are
# written: this file reads them out of it.  Source it from bash scripts.
_kdt_mk="$(dirname "${BASH_SOURCE[0]}")/versions.mk"
KVER=$(sed -n 's/^KVER[[:space:]]*:=[[:space:]]*//p' "$_kdt_mk")
KPKG_VERSION=$(sed -n 's/^KPKG_VERSION[[:space:]]*:=[[:space:]]*//p' "$_kdt_mk")
unset _kdt_mk
