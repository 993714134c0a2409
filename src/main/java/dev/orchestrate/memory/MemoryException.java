package dev.orchestrate.memory;

/** A memory operation that cannot be done as asked (unknown id, bad import line, ...). */
public final class MemoryException extends RuntimeException {
  public MemoryException(String message) {
    super(message);
  }
}
