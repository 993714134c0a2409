package dev.orchestrate.item;

import dev.orchestrate.error.OrchestrateException;

/**
 * The workspace of an item cannot be prepared; the message says why and what to do. A run blocks
 * the item with it ({@code scheduler/JobStarts}); outside a run it is a failure of the command.
 */
public final class WorkspaceUnavailableException extends OrchestrateException {
  public WorkspaceUnavailableException(String message) {
    super(Kind.FAILED, message);
  }
}
