package dev.orchestrate.app;

import dev.orchestrate.config.Config;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.ReviewQueue;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.limits.Cuts;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.workspace.BranchSummary;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.Rebase;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceSetupException;
import dev.orchestrate.workspace.Worktrees;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Returns blocked items to the status and phase each was blocked in, with notes for the agents'
 * next prompts: all of them or none. Refusals are checked read-only first, so a refused unblock
 * leaves the state as it found it, and again under the run lease, where a run may have changed an
 * item meanwhile.
 */
public final class Unblocking {
  private final StateBackend backend;
  private final Clock clock;

  public Unblocking(StateBackend backend, Clock clock) {
    this.backend = backend;
    this.clock = clock;
  }

  /**
   * @return the items as they are now, in the order asked (duplicates once)
   * @throws UnblockRefusedException naming every id that cannot be unblocked; nothing changed
   * @throws dev.orchestrate.state.StateLockedException while a run holds the lease
   */
  public List<ItemState> unblock(List<String> ids, String notes) {
    return unblock(ids, notes, null).items();
  }

  /**
   * With {@code unblock --rebase}: what the config says of worktrees (the commit author of rebased
   * commits), and where the user's checkout is found (the project's directory).
   */
  public record Rebasing(Config config, Path projectDir) {
    /**
     * @throws UnblockRefusedException without worktrees: agents then work in the user's checkout,
     *                                 which has the fix already
     */
    public Rebasing {
      if (!config.execution().workspace().worktrees()) {
        throw new UnblockRefusedException("--rebase needs execution.workspace: worktree"
            + config.source().map(f -> " (" + f + " has workspace: " + config.execution().workspace().mode().key()
                + ")").orElse("")
            + ": without worktrees agents work in your checkout, which has your fix already");
      }
    }
  }

  /**
   * The items unblocked, and with {@code --rebase} what became of each one's branch.
   *
   * @param rebases   by item id, in the order asked; empty without {@code --rebase}
   * @param baseAhead without {@code --rebase}: by item id, how many commits its base branch has that
   *                  its branch does not (landed since it forked), for the items with a worktree
   *                  whose next attempt starts from their branch; the hint that {@code --rebase}
   *                  would have brought them in
   */
  public record Outcome(List<ItemState> items, Map<String, Rebase> rebases, Map<String, Integer> baseAhead) {
    public Outcome(List<ItemState> items, Map<String, Rebase> rebases) {
      this(items, rebases, Map.of());
    }
  }

  /**
   * As {@link #unblock(List, String)}; with {@code rebasing}, each item's branch is first brought
   * onto the current tip of its base branch ({@link Worktrees#rebaseOntoBase}), so that its next
   * attempt sees what was committed there since (a fix of what blocked it). An item blocked at done
   * is left to its integration, which rebases anyway. When a rebase conflicts or cannot be done,
   * nothing is unblocked: a conflicting item stays blocked with the conflict (naming the files) as
   * its reason, and the others stay blocked as they were (a branch rebased meanwhile keeps its
   * recorded new start).
   *
   * @throws UnblockRebaseException when a rebase conflicted or could not be done
   */
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  public Outcome unblock(List<String> ids, String notes, Rebasing rebasing) {
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (!backend.exists()) {
      throw new UnblockRefusedException("unknown item " + quoted(wanted) + ": there is no state in "
          + backend.directory().root() + " yet");
    }
    refuseBeforeLocking(wanted, notes);
    List<ItemState> unblocked = new ArrayList<>();
    // A shared state needs no lease: the write below is conditional on every item still blocked,
    // and blocked items are held by no runner.
    // On the local state, in turn with the other commands deciding on items: a second unblock waits
    // for the first, then finds the items unblocked (exit 2), and a held lease is a run's.
    try (RunLease lease = backend.shared() ? null : backend.acquireDecisionLease(clock.instant());
        StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      refuseTaken(store.items().taken(wanted, ItemStatus.BLOCKED), wanted);
      List<Step> steps = steps(store.items()::item, wanted, notes);
      Map<String, Rebase> rebases = new LinkedHashMap<>();
      if (rebasing != null) {
        steps = rebased(store, steps, rebasing, rebases);
      }
      // Conditional on every item still blocked with no decision queued: on a shared state, where
      // no lease is taken, of several unblocks at once exactly one writes.
      refuseTaken(store.items().decideAllIf(steps, ItemStatus.BLOCKED, clock.instant()), wanted);
      steps.forEach(step -> unblocked.add(step.next()));
      return new Outcome(unblocked, rebases, rebasing == null ? baseAhead(store, steps) : Map.of());
    }
  }

  /**
   * For a plain unblock: the items whose base branch moved on since their branch forked, with how
   * far. Items blocked at done or landing are left out (their integration rebases anyway).
   */
  private static Map<String, Integer> baseAhead(StateStore store, List<Step> steps) {
    Map<String, Integer> ahead = new LinkedHashMap<>();
    Git git = null;
    for (Step step : steps) {
      ItemStatus from = step.next().status();
      if (from == ItemStatus.DONE || from == ItemStatus.LANDING) {
        continue;
      }
      Optional<WorkspaceRecord> ws = store.workspaces().workspace(step.next().id());
      if (ws.isEmpty() || ws.get().branch() == null || ws.get().baseBranch() == null) {
        continue;
      }
      git = git == null ? new Git() : git;
      java.util.OptionalInt n = BranchSummary.baseAhead(git, ws.get());
      if (n.isPresent() && n.getAsInt() > 0) {
        ahead.put(step.next().id(), n.getAsInt());
      }
    }
    return ahead;
  }

  /**
   * Rebases each item's branch (recording each one's new start), and returns the steps with an
   * event of each rebase; or, when one conflicted or could not be done, blocks the conflicting
   * items again with the conflict as their reason and throws.
   */
  private List<Step> rebased(StateStore store, List<Step> steps, Rebasing rebasing,
      Map<String, Rebase> rebases) {
    Worktrees worktrees = null;
    List<Step> out = new ArrayList<>();
    for (Step step : steps) {
      ItemState item = store.items().item(step.next().id()).orElseThrow();
      Optional<WorkspaceRecord> ws = store.workspaces().workspace(item.id());
      Rebase rebase;
      if ((item.progress().blockedFrom() == ItemStatus.DONE || item.progress().blockedFrom() == ItemStatus.LANDING)
          && ws.isPresent()) {
        rebase = new Rebase("at_integration", ws.get().branch(), ws.get().baseBranch(), null,
            ws.get().headCommit(), null, false, null);
      } else {
        if (worktrees == null && ws.isPresent()) {
          worktrees = worktrees(store, rebasing, ws.get().baseBranch());
        }
        rebase = worktrees == null
            ? new Rebase("no_worktree", Worktrees.BRANCH_PREFIX + item.id(), null, null, null, null, false,
                null)
            : worktrees.rebaseOntoBase(item.id());
      }
      rebases.put(item.id(), rebase);
      List<Event> events = new ArrayList<>(step.events());
      if (rebase.kind().equals("rebased") || rebase.kind().equals("up_to_date")) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("result", rebase.kind());
        payload.put("branch", rebase.branch());
        payload.put("onto", rebase.baseBranch());
        payload.put("base_commit", rebase.base());
        payload.put("from", rebase.from());
        payload.put("head_commit", rebase.head());
        payload.put("moved", rebase.moved());
        events.add(new Event(item.id(), "workspace.rebased", payload));
      }
      out.add(new Step(step.next(), events, step.truncatedValues()));
    }
    List<String> failures = new ArrayList<>();
    for (Rebase rebase : rebases.values()) {
      if (rebase.failed()) {
        failures.add(rebase.reason());
      }
    }
    if (failures.isEmpty()) {
      return out;
    }
    rebases.forEach((id, rebase) -> {
      if (rebase.kind().equals("conflict")) {
        ItemState item = store.items().item(id).orElseThrow();
        Progress p = item.progress();
        Cuts cuts = new Cuts();
        Progress again = new Progress(p.status(), p.phase(), p.attempts(),
            cuts.cap(rebase.reason(), Transitions.BLOCKED_REASON_MAX_CHARS), p.blockedFrom(), p.lastFailure(),
            p.phaseSummary(), p.unblockNotes(), p.resume());
        store.items().applyIf(new Step(item.with(again), List.of(new Event(id, "workspace.conflict",
            Map.of("reason", again.blockedReason()))), cuts.count()), ItemStatus.BLOCKED, clock.instant());
      }
    });
    throw new UnblockRebaseException(String.join("; ", failures) + (rebases.size() > 1 || failures.size() > 1
        ? " (nothing was unblocked)" : ""));
  }

  /** Refuses the unblock when another decision took one of its items first, naming it (issue 43). */
  private static void refuseTaken(List<ReviewQueue.Taken> taken, List<String> wanted) {
    if (!taken.isEmpty()) {
      throw new UnblockRefusedException(ItemSteps.taken(taken, "blocked", false)
          + (wanted.size() > 1 ? " (nothing was unblocked)" : ""));
    }
  }

  /** orchestrate's worktrees of this state, on the repository of the user's checkout. */
  private Worktrees worktrees(StateStore store, Rebasing rebasing, String baseBranch) {
    Git git = new Git();
    Repository repo;
    try {
      repo = Repository.discover(git, rebasing.projectDir(), baseBranch);
    } catch (WorkspaceSetupException e) {
      throw new UnblockRefusedException("--rebase: " + e.getMessage());
    }
    return new Worktrees(git, repo, rebasing.config().execution().workspace(),
        rebasing.config().retention().worktrees(), store.workspaces(), backend.directory().root().resolve("worktrees"),
        clock);
  }

  private void refuseBeforeLocking(List<String> wanted, String notes) {
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      if (store.schemaVersion() == 0) {
        throw new UnblockRefusedException("unknown item " + quoted(wanted) + ": the state in "
            + backend.directory().root() + " has no items");
      }
      if (store.schemaVersion() != store.latestSchemaVersion()) {
        return; // an older schema is read after its upgrade, under the lease
      }
      // the named items only, one read each: a state of a million items is not read for one unblock
      steps(store.items()::item, wanted, notes);
    }
  }

  /** Every id's step, or one refusal naming every id that cannot be unblocked. */
  private static List<Step> steps(Function<String, Optional<ItemState>> lookup, List<String> wanted, String notes) {
    ItemSteps.Outcome outcome = ItemSteps.of(lookup, wanted, item -> Transitions.unblock(item, notes));
    if (outcome.refused()) {
      throw new UnblockRefusedException(outcome.problems() + (wanted.size() > 1 ? " (nothing was unblocked)" : ""));
    }
    return outcome.steps();
  }

  private static String quoted(List<String> ids) {
    return ItemSteps.quoted(ids);
  }
}
