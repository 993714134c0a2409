package dev.orchestrate.memory;

import dev.orchestrate.error.OrchestrateException;

/** A memory operation that cannot be done as asked (unknown id, bad import line, ...). */
public final class MemoryException extends OrchestrateException {
  public MemoryException(String message) {
    super(Kind.USAGE, message);
  }
}
