#!/bin/sh
# scripts/check-links.sh -- every relative link of the Markdown pages
# (README.md, tutorials/, docs/) resolves: the file exists, and an anchor
# (#heading) names a heading of that page, slugged as code-hosting sites
# slug them (lower case; spaces to hyphens; punctuation dropped). Links
# inside ``` blocks are code, not links. Prints one line per broken link
# and exits 1 if there is one. Run from the repository root (make
# check-tutorials runs it).
set -u

# The anchors of a page, one per line.
slugs() {
  awk '/^```/ { code = !code; next }
       !code && /^#+ / {
         h = $0; sub(/^#+ +/, "", h); h = tolower(h)
         gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h); print h
       }' "$1"
}

fail=0
pages=$(ls README.md tutorials/*.md; find docs -name '*.md' | sort)
for page in $pages; do
  dir=$(dirname "$page")
  # Link targets outside code blocks: the (...) after a ](.
  targets=$(awk '/^```/ { code = !code; next } !code' "$page" |
    grep -o '\]([^) ]*)' | sed 's/^](//; s/)$//')
  for t in $targets; do
    case $t in
    *://* | mailto:*) continue ;;
    esac
    file=${t%%#*}
    anchor=
    case $t in *'#'*) anchor=${t#*#} ;; esac
    if [ -z "$file" ]; then
      target=$page
    else
      target=$dir/$file
    fi
    if [ ! -e "$target" ]; then
      echo "check-links: $page: $t: no such file"
      fail=1
      continue
    fi
    case $target in *.md) ;; *) continue ;; esac
    if [ -n "$anchor" ] && ! slugs "$target" | grep -qx -- "$anchor"; then
      echo "check-links: $page: $t: no heading with that anchor"
      fail=1
    fi
  done
done
[ "$fail" -eq 0 ] && echo "check-links: every link resolves"
exit "$fail"
