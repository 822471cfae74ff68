#!/bin/sh
# Writes an extension script from its template (docs/testing.md, "Where the
# SQL lives"):
#
#   sh src/sql/build.sh TEMPLATE OUTPUT [RELEASED]
#
# A line "--@include FILE" of TEMPLATE stands for the whole of
# src/sql/current/FILE; every other line is copied as it is.  RELEASED lists
# the scripts of released versions with the checksum (POSIX cksum) their text
# must keep: a released script that would change is not written, and the
# build fails, naming it.
set -eu
template=$1
output=$2
released=${3:-}
current=$(dirname "$0")/current
tmp=$output.tmp
: >"$tmp"
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
    --@include\ *)
        file=$current/${line#--@include }
        [ -f "$file" ] || { echo "$template: no $file" >&2; rm -f "$tmp"; exit 1; }
        cat "$file" >>"$tmp" ;;
    *)
        printf '%s\n' "$line" >>"$tmp" ;;
    esac
done <"$template"
name=$(basename "$output")
if [ -n "$released" ] && want=$(awk -v n="$name" '$1 == n { print $2 " " $3 }' "$released") && [ -n "$want" ]; then
    have=$(cksum <"$tmp" | awk '{ print $1 " " $2 }')
    if [ "$have" != "$want" ]; then
        echo "$name is a released script, and it would change: its text must stay as released." >&2
        echo "Before changing an object a released script includes, put its current text in place of the" >&2
        echo "script's --@include line (docs/testing.md, \"Changing a SQL function\")." >&2
        rm -f "$tmp"
        exit 1
    fi
fi
mv "$tmp" "$output"
