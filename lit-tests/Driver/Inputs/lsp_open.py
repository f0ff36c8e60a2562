#!/usr/bin/env python3
"""Prints a `ccl-lsp-server -lit-test` session that opens FILE, asks for its
diagnostics and shuts down:  lsp_open.py FILE"""
import json
import sys

with open(sys.argv[1]) as f:
    text = f.read()
messages = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"processId": 1, "rootPath": "cclir", "capabilities": {}, "trace": "off"}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen",
     "params": {"textDocument": {"uri": "test:///input.mlir", "languageId": "mlir", "version": 1, "text": text}}},
    {"jsonrpc": "2.0", "id": 1, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
print("\n// -----\n".join(json.dumps(m) for m in messages))
