package dev.orchestrate.app;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.InvalidTransitionException;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ReviewDecision;
import dev.orchestrate.item.ReviewQueue;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.landing.Landing;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateLockedException;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceSetupException;
import dev.orchestrate.workspace.Worktrees;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
 * <p>While a run holds the state (the local state's run lease, or any live runner of a shared
 * one), the decisions are queued instead ({@link ReviewDecision}) once the ids are validated
 * read-only: the run applies them on its next tick through its own commit path and integration
 * (it holds the items in memory, and only a run integrates beside a run). The use case then waits
 * up to its patience for the items to move, and says what became of each one or that it is still
 * queued. With no run, it writes at once: on the local state under the run lease (with worktrees an
 * approved item is then integrated at once, nothing else can be integrating); on a shared
 * (PostgreSQL) state the approved item's workspace is marked finished, so its integration is
 * pending, and the next run to start integrates it with the other pending ones.
 */
public final class Reviewing {
  /** How long a queued decision is waited for by default: the run reads the queue every second. */
  public static final Duration PATIENCE = Duration.ofSeconds(5);
  private static final long POLL_MS = 200;

  private final StateBackend backend;
  private final Clock clock;
  private final Duration patience;

  public Reviewing(StateBackend backend, Clock clock) {
    this(backend, clock, PATIENCE);
  }

  /** @param patience how long to wait for a running run to apply queued decisions (zero: not at all) */
  public Reviewing(StateBackend backend, Clock clock, Duration patience) {
    this.backend = backend;
    this.clock = clock;
    this.patience = patience;
  }

  /** The project's config (pipelines, worktrees) and its directory, where the user's checkout is found. */
  public record Project(Config config, Path projectDir) {
  }

  /**
   * An approved item as it is now, with what became of its integration.
   *
   * @param integration none (no worktree: nothing to integrate), integrated, skipped (merge: none),
   *                    deferred, conflict, refused (the last two block the item, as at a run's
   *                    integration), pending (a shared state: a run integrates it); beside a run:
   *                    what the run's integration came to (also pushed, awaiting_checks, blocked),
   *                    queued (the run has not applied it yet) or dropped (the item stopped awaiting
   *                    review before the run applied it)
   * @param message     what the integration said, or null
   */
  public record Approved(ItemState item, String integration, String message) {
  }

  /**
   * A rejected item as it is now.
   *
   * @param outcome rejected (applied), queued (a running run has not applied it yet) or dropped (the
   *                item stopped awaiting review before the run applied it)
   */
  public record Rejected(ItemState item, String outcome) {
  }

  /**
   * Approves the items: each is done, and with worktrees integrated (or left pending on a shared
   * state).
   *
   * @throws ReviewRefusedException naming every id that cannot be approved; nothing changed
   * @throws dev.orchestrate.state.StateLockedException while a run holds a local state of an older
   *                                                    schema (else the decisions are queued for it)
   */
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  public List<Approved> approve(List<String> ids, Project project) {
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    requireState(wanted);
    List<Step> validated = refuseBeforeLocking(wanted, Transitions::approve);
    RunLease lease = runLease(validated);
    if (lease == null) {
      return queued(validated, true).stream().map(Reviewing::approved).toList();
    }
    boolean worktrees = project.config().execution().workspace().worktrees();
    try (RunLease held = lease) {
      Repository repo = worktrees && !backend.shared() ? repository(project) : null;
      try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
        // through the merge queue, an approved item is landing until its work is on the base branch
        boolean queue = worktrees && project.config().execution().workspace().merge() != WorkspaceConfig.Merge.NONE;
        refuseTaken(store.items().taken(wanted, ItemStatus.AWAITING_REVIEW), wanted, false);
        List<Step> steps = steps(store.items()::item, wanted,
            item -> queue ? Transitions.toLand(Transitions.approve(item)) : Transitions.approve(item));
        refuseTaken(store.items().decideAllIf(steps, ItemStatus.AWAITING_REVIEW, clock.instant()), wanted, false);
        List<Approved> out = new ArrayList<>();
        Landing landing = null;
        for (Step step : steps) {
          ItemState item = step.next();
          Optional<WorkspaceRecord> ws = worktrees ? store.workspaces().workspace(item.id()) : Optional.empty();
          if (ws.isEmpty()) {
            if (item.status() == ItemStatus.LANDING) { // no worktree, so nothing to land
              item = Transitions.landed(item, "approved; no worktree to land").next();
              store.items().applyIf(new Step(item, List.of()), ItemStatus.LANDING, clock.instant());
            }
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
          if (landing == null) {
            landing = landing(project, store, repo);
          }
          out.add(integrate(store, landing, item, project.config().pipelines()));
        }
        return out;
      }
    }
  }

  /** How the approved items land: as a run lands them, from their worktrees. */
  private Landing landing(Project project, StateStore store, Repository repo) {
    Git git = new Git();
    WorkspaceConfig workspace = project.config().execution().workspace();
    Path stateRoot = backend.directory().root();
    Worktrees worktrees = new Worktrees(git, repo, workspace, project.config().retention().worktrees(),
        store.workspaces(), stateRoot.resolve("worktrees"), clock).open();
    return new Landing(git, worktrees, workspace, store.workspaces(), clock, stateRoot.resolve("jobs")).open();
  }

  /**
   * Lands one approved item as a run's merge queue does: done once integrated, blocked on a conflict,
   * back to its last phase when its integration gates are red, awaiting its checks after a push
   * (which the next run polls), still landing when deferred (the next run lands it).
   */
  private Approved integrate(StateStore store, Landing landing, ItemState item, Map<String, Pipeline> pipelines) {
    Pipeline pipeline = pipelines.get(item.definition().pipeline());
    IntegrationResult result = landing.integrate(item.id(), item.definition().title(),
        pipeline == null ? List.of() : pipeline.integrationGates());
    Step step = Transitions.afterLanding(item, pipeline, result);
    if (step != null) {
      store.items().applyIf(step, item.status(), clock.instant());
      return new Approved(step.next(), result.kind(), result.message());
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
   * @throws dev.orchestrate.state.StateLockedException while a run holds a local state of an older
   *                                                    schema (else the decisions are queued for it)
   */
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  public List<Rejected> reject(List<String> ids, String notes, String phase, Project project) {
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
    List<Step> validated = refuseBeforeLocking(wanted, reject);
    RunLease lease = runLease(validated);
    if (lease == null) {
      return queued(validated, false).stream().map(w -> new Rejected(w.item(), w.outcome())).toList();
    }
    try (RunLease held = lease; StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      refuseTaken(store.items().taken(wanted, ItemStatus.AWAITING_REVIEW), wanted, false);
      List<Step> steps = steps(store.items()::item, wanted, reject);
      refuseTaken(store.items().decideAllIf(steps, ItemStatus.AWAITING_REVIEW, clock.instant()), wanted, false);
      return steps.stream().map(step -> new Rejected(step.next(), "rejected")).toList();
    }
  }

  /** No lease is needed: the shared state's writes are conditional. */
  private static final RunLease NOT_NEEDED = () -> {};

  /**
   * The run lease to write under at once, or null when a run holds the state and the decisions
   * are to be queued for it: the local state's lease taken by a run, or a live runner of a shared
   * state. {@code validated} null: the ids could not be validated read-only (an older schema), so
   * they are not queued, and a held lease refuses the command as before.
   */
  private RunLease runLease(List<Step> validated) {
    if (backend.shared()) {
      return validated != null && backend.leaseHeld() ? null : NOT_NEEDED;
    }
    try {
      // In turn with the other commands deciding: held, the lease is a run's, not another decision's.
      return backend.acquireDecisionLease(clock.instant());
    } catch (StateLockedException e) {
      if (validated == null) {
        throw e;
      }
      return null;
    }
  }

  /** An item as a queued decision left it, once waited for. */
  private record Waited(ItemState item, String outcome, String integration, String message) {
  }

  private static Approved approved(Waited w) {
    return new Approved(w.item(), w.integration() != null ? w.integration() : w.outcome(), w.message());
  }

  /**
   * Queues the validated steps' decisions for the run that holds the state, then waits up to the
   * patience for it to apply them, and says what became of each item.
   */
  private List<Waited> queued(List<Step> validated, boolean approve) {
    Instant now = clock.instant();
    List<ReviewDecision> decisions = validated.stream().map(step -> new ReviewDecision(0, step.next().id(), approve,
        approve ? null : step.next().progress().unblockNotes(), approve ? null : step.next().progress().phase(),
        now)).toList();
    List<Long> queue;
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      // The claim: queued only while every item awaits review with no decision queued for it.
      ReviewQueue.Claim claim = store.items().queueDecisions(decisions, now);
      refuseTaken(claim.taken(), decisions.stream().map(ReviewDecision::itemId).toList(), true);
      queue = claim.ids();
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      java.util.Set<Long> pending = new java.util.HashSet<>(queue);
      long deadline = System.nanoTime() + patience.toNanos();
      while (!pending.isEmpty() && System.nanoTime() - deadline < 0) {
        try {
          Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt(); // stop waiting: the run still applies them
          break;
        }
        java.util.Set<Long> left = new java.util.HashSet<>();
        store.items().reviewDecisions(Integer.MAX_VALUE).forEach(d -> left.add(d.id()));
        pending.retainAll(left);
      }
      List<Waited> out = new ArrayList<>();
      for (int i = 0; i < decisions.size(); i++) {
        String id = decisions.get(i).itemId();
        ItemState item = store.items().item(id).orElseThrow();
        if (pending.contains(queue.get(i))) {
          out.add(new Waited(item, "queued", null, "the running run applies it"));
        } else if (store.items().decisionDropped(id, now)) {
          out.add(new Waited(item, "dropped", null, "it stopped awaiting review before the run applied it"));
        } else if (!approve) {
          out.add(new Waited(item, "rejected", null, null));
        } else {
          out.add(new Waited(item, "approved", integration(store, item), item.status() == ItemStatus.BLOCKED
              ? item.progress().blockedReason() : "by the running run"));
        }
      }
      return out;
    }
  }

  /** What a run's integration made of an approved item, as far as the state tells. */
  private static String integration(StateStore store, ItemState item) {
    if (item.status() == ItemStatus.BLOCKED) {
      return "blocked";
    }
    if (item.status() == ItemStatus.AWAITING_CHECKS) {
      return "awaiting_checks";
    }
    Optional<WorkspaceRecord> ws = store.workspaces().workspace(item.id());
    if (ws.isEmpty()) {
      return "none";
    }
    return ws.get().integration() == null ? "pending" : ws.get().integration().key();
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

  /**
   * Refuses the command when another decision took one of its items first (issue 43): a usage
   * error, as for an item not awaiting review, naming the decision that won and the item now.
   */
  private static void refuseTaken(List<ReviewQueue.Taken> taken, List<String> wanted, boolean running) {
    if (!taken.isEmpty()) {
      throw new ReviewRefusedException(ItemSteps.taken(taken, "awaiting review", running)
          + (wanted.size() > 1 ? " (nothing was changed)" : ""));
    }
  }

  /** The ids' steps as read now (read-only), or a refusal; null when the state's schema is older (read under the lease). */
  private List<Step> refuseBeforeLocking(List<String> wanted, Function<ItemState, Step> transition) {
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      if (store.schemaVersion() == 0) {
        throw new ReviewRefusedException("unknown item " + quoted(wanted) + ": the state in "
            + backend.directory().root() + " has no items");
      }
      if (store.schemaVersion() != store.latestSchemaVersion()) {
        return null; // an older schema is read after its upgrade, under the lease
      }
      // the named items only, one read each: a state of a million items is not read for one decision
      return steps(store.items()::item, wanted, transition);
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
