#!/bin/sh
# show_all.sh PYTHON: every bug shown directly, one JSON-RPC exchange each (the output is exchanges.txt).
# Run from examples/mcp-buggy; ts/node_modules must hold the TypeScript SDK (see README.md).
py=${1:-python3}
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"; }
show() { name=$1; shift; echo "== $name"; "$py" show.py "$@" | grep -v '"method":"initialize"\|notifications/initialized\|"id":1,"result"'; echo; }
show output_wrong_type "$py output_wrong_type.py" "$(call 2 get_item '{"sku":"SKU-0001"}')"
show output_missing "$py output_missing.py" "$(call 2 get_item '{"sku":"SKU-0001"}')"
show text_disagrees "$py text_disagrees.py" "$(call 2 add_stock '{"sku":"SKU-0001","qty":5}')"
show traceback_leak "$py traceback_leak.py" "$(call 2 sync_warehouse '{}')"
show secret_leak "$py secret_leak.py" "$(call 2 sync_warehouse '{}')"
show error_not_flagged "$py error_not_flagged.py" "$(call 2 add_stock '{"sku":"SKU-0001","qty":1001}')"
show coerce_numbers "node ts/coerce_numbers.mjs" "$(call 2 add_stock '{"sku":"SKU-0001","qty":"100"}')" "$(call 3 add_stock '{"sku":"SKU-0001","qty":true}')"
show extras_stripped "node ts/extras_stripped.mjs" "$(call 2 add_stock '{"sku":"SKU-0001","qty":1,"is_admin":true}')"
echo "== version_echo"; printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1900-01-01","capabilities":{},"clientInfo":{"name":"show","version":"0"}}}' | timeout 5 node ts/version_echo.mjs 2>/dev/null; echo
show stdout_print "$py stdout_print.py" "$(call 2 get_item '{"sku":"SKU-0001"}')"
show progress_without_token "$py progress_without_token.py" "$(call 2 get_item '{"sku":"SKU-0001"}')"
show tools_page_repeat "$py tools_page_repeat.py" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"1"}}'
show resource_not_found_ok "$py resource_not_found_ok.py" '{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"inventory://SKU-9999"}}'
show unknown_tool_ok "$py unknown_tool_ok.py" "$(call 2 get_itme '{"sku":"SKU-0001"}')"
