package dev.orchestrate.mcp;

import dev.orchestrate.error.OrchestrateException;

/** What a tool refuses (a bad argument, an unknown item): a result with {@code isError: true}, for the model to read. */
final class ToolRefusal extends OrchestrateException {
  ToolRefusal(String message) {
    super(Kind.USAGE, message);
  }
}
