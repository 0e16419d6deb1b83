# A program that tries to write where the auditor writes ($HOSTILE_TARGET) and to signal the
# auditor ($HOSTILE_AUDITOR, or its parent), then plays arm 0 in every round (protocol "table");
# a breach is its exit status 9.
if ( : > "$HOSTILE_TARGET/forged.json" ) 2>/dev/null; then
    echo "breached: wrote in $HOSTILE_TARGET" >&2; exit 9
fi
if kill -0 "${HOSTILE_AUDITOR:-$PPID}" 2>/dev/null; then
    echo "breached: may signal the auditor" >&2; exit 9
fi
read header
while read word k t seed; do
    [ "$word" = quit ] && exit 0
    i=0; out=""
    while [ "$i" -lt "$t" ]; do read row; out="$out 0"; i=$((i + 1)); done
    echo $out
done
