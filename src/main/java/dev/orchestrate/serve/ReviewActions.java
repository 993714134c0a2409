package dev.orchestrate.serve;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.app.Unblocking;
import dev.orchestrate.error.OrchestrateException;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateLockedException;
import dev.orchestrate.workspace.Rebase;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;

/**
 * What {@code serve --actions} does with a reviewer's decision: the very use cases
 * {@code approve}, {@code reject} and {@code unblock [--rebase]} call ({@link Reviewing},
 * {@link Unblocking}), so the rules (all or nothing, only an item awaiting review or blocked, one
 * decision per item), the run lock and the queueing for a running run are theirs. Each action
 * says, in one line, what became of the item, or why nothing was done.
 */
final class ReviewActions {
  private final StateBackend backend;
  private final Supplier<Reviewing.Project> project;
  private final Clock clock;

  /**
   * @param project the project's config and checkout, loaded at each action as a command loads them
   *                (found as {@code approve} finds them)
   */
  ReviewActions(StateBackend backend, Supplier<Reviewing.Project> project, Clock clock) {
    this.backend = backend;
    this.project = project;
    this.clock = clock;
  }

  /** What an action came to: {@code applied} false when it was refused and nothing changed. */
  record Result(boolean applied, String message) {
  }

  Result approve(String id) {
    return decide(() -> {
      Reviewing.Approved a = new Reviewing(backend, clock).approve(List.of(id), project.get()).get(0);
      return switch (a.integration()) {
        case "queued" -> "Queued " + id + ": " + a.message();
        case "dropped" -> "Dropped " + id + ": " + a.message() + " (now " + a.item().status().key() + ")";
        default -> "Approved " + id + ": " + a.item().status().key()
            + (a.message() == null ? "" : " (" + a.integration() + ": " + a.message() + ")");
      };
    });
  }

  /** @param phase the phase to go back to, or null for the pipeline's last */
  Result reject(String id, String notes, String phase) {
    if (notes == null || notes.isBlank()) {
      return new Result(false, "notes must not be empty: tell the agent what to change");
    }
    return decide(() -> {
      Reviewing.Rejected r = new Reviewing(backend, clock).reject(List.of(id), notes, phase, project.get()).get(0);
      ItemState item = r.item();
      return switch (r.outcome()) {
        case "queued" -> "Queued " + id + ": the running run applies it; the notes go into its next prompt";
        case "dropped" -> "Dropped " + id + ": it stopped awaiting review before the run applied it (now "
            + item.status().key() + ")";
        default -> "Rejected " + id + ": " + item.status().key() + " at phase " + item.progress().phase()
            + "; the notes go into its next prompt";
      };
    });
  }

  Result unblock(String id, String notes, boolean rebase) {
    if (notes == null || notes.isBlank()) {
      return new Result(false, "notes must not be empty: tell the agent what changed");
    }
    return decide(() -> {
      Unblocking.Rebasing rebasing = null;
      if (rebase) {
        Reviewing.Project p = project.get();
        rebasing = new Unblocking.Rebasing(p.config(), p.projectDir());
      }
      Unblocking.Outcome out = new Unblocking(backend, clock).unblock(List.of(id), notes, rebasing);
      ItemState item = out.items().get(0);
      Rebase r = out.rebases().get(id);
      return "Unblocked " + id + ": " + item.status().key()
          + (item.progress().phase() == null ? "" : " at phase " + item.progress().phase())
          + (r == null ? "" : " (rebase: " + r.kind() + ")") + "; the notes go into its next prompt";
    });
  }

  /** Whether {@code rebase} can be offered: the project works in worktrees. */
  boolean worktrees() {
    try {
      return project.get().config().execution().workspace().worktrees();
    } catch (OrchestrateException e) {
      return false;
    }
  }

  private interface Decision {
    String take();
  }

  private static Result decide(Decision decision) {
    try {
      return new Result(true, decision.take());
    } catch (StateLockedException e) {
      return new Result(false, e.getMessage() + " (decide between runs, or once the run has ended)");
    } catch (OrchestrateException e) {
      return new Result(false, e.getMessage());
    }
  }
}
