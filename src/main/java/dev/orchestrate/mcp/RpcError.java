package dev.orchestrate.mcp;

import dev.orchestrate.error.OrchestrateException;

/** A protocol error: answered as a JSON-RPC error with its code, never as a tool's result. */
final class RpcError extends OrchestrateException {
  final int code;

  RpcError(int code, String message) {
    super(Kind.USAGE, message);
    this.code = code;
  }
}
