package dev.orchestrate.app;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.InvalidTransitionException;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceSetupException;
import dev.orchestrate.workspace.Worktrees;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The review gate's human side (docs/review.md): {@code approve} makes items awaiting review done
 * and integrates them, {@code reject} sends them back to a phase with the reviewer's notes for the
 * next prompt. All of the ids or none, as {@link Unblocking}: refusals are checked read-only first,
 * and the write is conditional on every item still awaiting review.
 *
 * <p>On the local (SQLite) state the use case takes the run lease, so it is refused while a run
 * works on the state (the run holds the items in memory); with worktrees an approved item is then
 * integrated at once, nothing else can be integrating. On a shared (PostgreSQL) state it works beside
 * running runs (whose claims read the items again): the approved item's workspace is marked
 * finished, so its integration is pending, and the next run to start integrates it with the other
 * pending ones, the one path by which a run integrates work it did not finish itself.
 */
public final class Reviewing {
  private final StateBackend backend;
  private final Clock clock;

  public Reviewing(StateBackend backend, Clock clock) {
    this.backend = backend;
    this.clock = clock;
  }

  /** The project's config (pipelines, worktrees) and its directory, where the user's checkout is found. */
  public record Project(Config config, Path projectDir) {
  }

  /**
   * An approved item as it is now, with what became of its integration.
   *
   * @param integration none (no worktree: nothing to integrate), integrated, skipped (merge: none),
   *                    deferred, conflict, refused (the last two block the item, as at a run's
   *                    integration), pending (a shared state: a run integrates it)
   * @param message     what the integration said, or null
   */
  public record Approved(ItemState item, String integration, String message) {
  }

  /**
   * Approves the items: each is done, and with worktrees integrated (or left pending on a shared
   * state).
   *
   * @throws ReviewRefusedException naming every id that cannot be approved; nothing changed
   * @throws dev.orchestrate.state.StateLockedException while a run holds the local state's lease
   */
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  public List<Approved> approve(List<String> ids, Project project) {
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    requireState(wanted);
    refuseBeforeLocking(wanted, Transitions::approve);
    boolean worktrees = project.config().execution().workspace().worktrees();
    Repository repo = worktrees && !backend.shared() ? repository(project) : null;
    try (RunLease lease = backend.shared() ? null : backend.acquireLease(clock.instant());
        StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      List<Step> steps = steps(store.items()::item, wanted, Transitions::approve);
      if (!store.items().applyAllIf(steps, ItemStatus.AWAITING_REVIEW, clock.instant())) {
        throw changedMeanwhile();
      }
      List<Approved> out = new ArrayList<>();
      Worktrees integrator = null;
      for (Step step : steps) {
        ItemState item = step.next();
        Optional<WorkspaceRecord> ws = worktrees ? store.workspaces().workspace(item.id()) : Optional.empty();
        if (ws.isEmpty()) {
          out.add(new Approved(item, "none", null));
          continue;
        }
        if (backend.shared()) {
          Instant now = clock.instant();
          if (ws.get().finishedAt() == null) {
            store.workspaces().finished(item.id(), now, now);
          }
          out.add(new Approved(item, "pending", ws.get().branch() + " is integrated by a run"));
          continue;
        }
        if (integrator == null) {
          integrator = new Worktrees(new Git(), repo, project.config().execution().workspace(),
              project.config().retention().worktrees(), store.workspaces(),
              backend.directory().root().resolve("worktrees"), clock).open();
        }
        out.add(integrate(store, integrator, item));
      }
      return out;
    }
  }

  /** Integrates one approved item as a run does at done: a conflict blocks it, anything else said is an event. */
  private Approved integrate(StateStore store, Worktrees worktrees, ItemState item) {
    ItemWorkspaces.Integration result = worktrees.integrate(item.id(), item.definition().title());
    if (result.blocks()) {
      Step blocked = Transitions.integrationConflict(item, result.message());
      store.items().applyIf(blocked, ItemStatus.DONE, clock.instant());
      return new Approved(blocked.next(), result.kind(), result.message());
    }
    if (result.message() != null) {
      store.items().apply(new Step(item, List.of(new Event(item.id(), "workspace." + result.kind(),
          Map.of("message", result.message())))), clock.instant());
    }
    return new Approved(item, result.kind(), result.message());
  }

  /**
   * Rejects the items: each goes back to {@code phase} of its pipeline (null: the pipeline's last
   * phase) with the notes for its next prompt.
   *
   * @throws ReviewRefusedException naming every id that cannot be rejected; nothing changed
   * @throws dev.orchestrate.state.StateLockedException while a run holds the local state's lease
   */
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  public List<ItemState> reject(List<String> ids, String notes, String phase, Project project) {
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    requireState(wanted);
    Function<ItemState, Step> reject = item -> {
      Pipeline pipeline = project.config().pipelines().get(item.definition().pipeline());
      if (pipeline == null) {
        throw new InvalidTransitionException("item " + item.id() + "'s pipeline '" + item.definition().pipeline()
            + "' is not in the config");
      }
      return Transitions.reject(item, pipeline, notes, phase);
    };
    refuseBeforeLocking(wanted, reject);
    try (RunLease lease = backend.shared() ? null : backend.acquireLease(clock.instant());
        StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      List<Step> steps = steps(store.items()::item, wanted, reject);
      if (!store.items().applyAllIf(steps, ItemStatus.AWAITING_REVIEW, clock.instant())) {
        throw changedMeanwhile();
      }
      return steps.stream().map(Step::next).toList();
    }
  }

  private Repository repository(Project project) {
    try {
      return Repository.discover(new Git(), project.projectDir(),
          project.config().execution().workspace().baseBranch());
    } catch (WorkspaceSetupException e) {
      throw new ReviewRefusedException("cannot integrate: " + e.getMessage());
    }
  }

  private void requireState(List<String> wanted) {
    if (!backend.exists()) {
      throw new ReviewRefusedException("unknown item " + quoted(wanted) + ": there is no state in "
          + backend.directory().root() + " yet");
    }
  }

  private static ReviewRefusedException changedMeanwhile() {
    return new ReviewRefusedException("an item stopped awaiting review meanwhile; nothing was changed; "
        + "check 'orchestrate status'");
  }

  private void refuseBeforeLocking(List<String> wanted, Function<ItemState, Step> transition) {
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      if (store.schemaVersion() == 0) {
        throw new ReviewRefusedException("unknown item " + quoted(wanted) + ": the state in "
            + backend.directory().root() + " has no items");
      }
      if (store.schemaVersion() != store.latestSchemaVersion()) {
        return; // an older schema is read after its upgrade, under the lease
      }
      Map<String, ItemState> items = new HashMap<>();
      store.items().items().forEach(item -> items.put(item.id(), item));
      steps(id -> Optional.ofNullable(items.get(id)), wanted, transition);
    }
  }

  /** Every id's step, or one refusal naming every id that cannot take it, with the known ids awaiting review. */
  private static List<Step> steps(Function<String, Optional<ItemState>> lookup, List<String> wanted,
      Function<ItemState, Step> transition) {
    ItemSteps.Outcome outcome = ItemSteps.of(lookup, wanted, transition);
    if (outcome.refused()) {
      throw new ReviewRefusedException(outcome.problems() + (wanted.size() > 1 ? " (nothing was changed)" : ""));
    }
    return outcome.steps();
  }

  private static String quoted(List<String> ids) {
    return ItemSteps.quoted(ids);
  }
}
