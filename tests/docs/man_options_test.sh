#!/usr/bin/env bash
# Checks that a man page documents every option the program's --help shows.
#   man_options_test.sh PROGRAM MANPAGE [COMMAND...]
# With COMMANDs (usdt-report), the options of each `PROGRAM COMMAND --help`
# are checked instead, and each COMMAND must be named in the page. Options are read
# from the option lines of the help (lines that start with blanks and a '-',
# as Boost.Program_options prints them); the page is read as roff source,
# where '\-' stands for '-'. When groff is present the page must also format
# without warnings.
set -euo pipefail

program=$1
page=$2
shift 2

text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")
failures=0

options_of() {
  "$program" "$@" --help | grep -E '^ +-' | grep -oE '(^|[ [])--?[a-zA-Z][a-zA-Z0-9-]*' |
    sed 's/^[ []//' | sort -u || true
}

documented() {
  grep -qE -- "(^|[^a-zA-Z0-9-])$1([^a-zA-Z0-9-]|\$)" <<<"$text"
}

check_options() {
  local help_options
  help_options=$(options_of "$@")
  if [ -z "$help_options" ]; then
    echo "error: no options found in '$program $* --help'" >&2
    failures=$((failures + 1))
    return
  fi
  for option in $help_options; do
    if ! documented "$option"; then
      echo "error: $page does not document $option (from '$(basename "$program")${*:+ $*} --help')" >&2
      failures=$((failures + 1))
    fi
  done
}

[ $# -gt 0 ] || check_options
for command in "$@"; do
  check_options "$command"
  if ! grep -qE "^\.B $command\$" <<<"$text"; then
    echo "error: $page does not describe the command '$command'" >&2
    failures=$((failures + 1))
  fi
done

if command -v groff >/dev/null; then
  warnings=$(groff -man -ww -z "$page" 2>&1)
  if [ -n "$warnings" ]; then
    echo "error: groff warns about $page:" >&2
    echo "$warnings" >&2
    failures=$((failures + 1))
  fi
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures problem(s) in $page" >&2
  exit 1
fi
echo "$page documents every option of $(basename "$program")${*:+ and its commands $*}"
