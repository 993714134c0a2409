package dev.orchestrate.landing;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.ItemLanding;
import dev.orchestrate.item.LandingItem;
import dev.orchestrate.item.LastSession;
import dev.orchestrate.item.SlowWork;
import dev.orchestrate.item.WorkspaceUnavailableException;
import dev.orchestrate.jobs.Bubblewrap;
import dev.orchestrate.workspace.ChecksRecord;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitException;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.SharedRemote;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceStore;
import dev.orchestrate.workspace.WorktreeGuard;
import dev.orchestrate.workspace.Worktrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a done item's work lands, with a worktree per item (docs/workspaces.md): under
 * {@code execution.merge: rebase} or {@code merge} its branch is integrated into the base branch,
 * which moves forward only by a fast-forward git itself checks ({@link Integrator}); under
 * {@code push} the rebased branch is pushed, its pull request opened and its checks awaited
 * ({@link Pusher}); under {@code none} the branch is left for a person.
 *
 * <p>Integration at Done, one item at a time (the scheduler thread): the branch is rebased onto the
 * base branch (or merged into it), and the base branch moves forward by {@code update-ref} with the
 * old value when no work tree has it checked out, {@code merge --ff-only} in the work tree that has
 * it, which refuses rather than overwrite a local change. The worktree is reached only through
 * {@link Worktrees} (verified by its guard first), and the base branches through its
 * {@link Worktrees#bases() watch}, so that a move of orchestrate's own is never taken for an agent's.
 */
public final class Landing implements ItemLanding {
  private static final Logger log = LoggerFactory.getLogger(Landing.class);
  /** Attempts to move the base branch when it moves under us (a commit by the user meanwhile). */
  private static final int INTEGRATION_ATTEMPTS = 3;

  private final Git git;
  private final Worktrees worktrees;
  private final WorkspaceConfig config;
  private final WorkspaceStore store;
  private final Clock clock;
  /** The user's checkout, the repository pinned: where repository-wide commands run. */
  private final Git.Place checkout;
  private final Integrator integrator;
  /** execution.merge: push; null under the other modes. */
  private final Pusher pusher;
  /** execution.checks (with review_feedback and land) under merge: push; null without. */
  private final ChecksWait checksWait;
  private PushOutput mask = PushOutput.of(UnaryOperator.identity());
  /** The environment the project's commands start from: gates, checks, pull requests. */
  private Map<String, String> commandEnv = System.getenv();
  /** agent.sandbox for the integration gates; null: none. */
  private Bubblewrap box;

  /**
   * @param worktrees the items' worktrees, {@link Worktrees#open() open}
   * @param bodies    where the pull requests' body files go ({@code <state>/jobs}, one directory per item)
   */
  public Landing(Git git, Worktrees worktrees, WorkspaceConfig config, WorkspaceStore store, Clock clock,
      Path bodies) {
    this.git = Objects.requireNonNull(git, "git");
    this.worktrees = Objects.requireNonNull(worktrees, "worktrees");
    this.config = Objects.requireNonNull(config, "config");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    Repository repo = worktrees.repository();
    this.checkout = repo.checkout();
    this.integrator = new Integrator(git, repo, config, checkout, worktrees.guardRoot());
    this.pusher = config.merge() == WorkspaceConfig.Merge.PUSH
        ? new Pusher(git, repo, config, store, clock, bodies) : null;
    this.checksWait = pusher != null && config.checks() != null
        ? new ChecksWait(config.checks(), store, clock, repo.top()) : null;
  }

  /**
   * Masks {@code secrets} (the agents' secrets, {@code jobs/Secrets}) too in what a push or a
   * pull-request command's output leaves in the state; URL credentials are masked either way.
   */
  public Landing masking(UnaryOperator<String> secrets) {
    mask = PushOutput.of(secrets);
    if (pusher != null) {
      pusher.masking(secrets);
    }
    if (checksWait != null) {
      checksWait.masking(secrets);
    }
    if (worktrees.remote() != null) {
      worktrees.remote().masking(mask::mask);
    }
    return this;
  }

  /**
   * The environment the integration gates, checks and pull-request commands start from: the
   * user's, without the secrets orchestrate withholds from them ({@code config/SecretEnv}).
   */
  public Landing environment(Map<String, String> env) {
    commandEnv = Map.copyOf(env);
    if (pusher != null) {
      pusher.environment(commandEnv);
    }
    if (checksWait != null) {
      checksWait.environment(commandEnv);
    }
    return this;
  }

  /** The environment the project's commands start from. */
  Map<String, String> commandEnv() {
    return commandEnv;
  }

  /**
   * Runs the integration gates in {@code box} ({@code agent.sandbox}), as the phases' gates run:
   * the landing tree and a scratch directory writable, the state hidden.
   */
  public Landing sandboxed(Bubblewrap box) {
    this.box = box;
    return this;
  }

  /** How an integration gate's argv runs in {@code tree}: in the sandbox, or as it is. */
  UnaryOperator<List<String>> gateWrap(Path tree) {
    if (box == null) {
      return UnaryOperator.identity();
    }
    Path state = worktrees.root().getParent();
    return argv -> {
      try {
        Path scratch = Files.createDirectories(worktrees.root().resolve("+tmp"));
        return box.argv(argv, tree, state, scratch, AgentPreset.COMMAND, commandEnv, true);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
  }

  /** Pins what a push goes by (the remote's URL and its configuration) now, before any agent of the run worked. */
  public Landing open() {
    if (pusher != null) {
      pusher.pin();
    }
    return this;
  }

  /**
   * The check of {@code execution.remote} under {@code merge: push}, before a run takes its lock:
   * the repository has that remote.
   *
   * @throws dev.orchestrate.workspace.WorkspaceSetupException naming the remote and what to do
   */
  public static void checkRemote(Git git, Repository repo, WorkspaceConfig config) {
    if (config.merge() == WorkspaceConfig.Merge.PUSH) {
      Pusher.remoteUrl(git, repo, config.remote());
    }
  }

  @Override
  public int batchSize() {
    return config.merge() == WorkspaceConfig.Merge.REBASE ? config.integrationBatch() : 1;
  }

  @Override
  public SlowWork<Map<String, IntegrationResult>> integrateBatch(
      List<LandingItem> items) {
    return new Batch(this, git, worktrees, integrator, store, clock, checkout).start(items);
  }

  /** What red reports are masked with. */
  PushOutput mask() {
    return mask;
  }

  @Override
  public boolean queues() {
    return config.merge() != WorkspaceConfig.Merge.NONE;
  }

  @Override
  public List<String> integrationPending() {
    List<String> ids = new ArrayList<>();
    for (WorkspaceRecord ws : store.onDisk()) {
      if (ws.finishedAt() != null
          && landsAgain(ws.integration())
          && (pusher == null || pusher.due(ws.push()))) {
        ids.add(ws.itemId());
      }
    }
    return ids;
  }

  /**
   * Whether a done item whose workspace says this is still to land: never tried, deferred, or
   * blocked at done by a conflict, a refusal or its wait after a push (unblocked since: done again).
   */
  private static boolean landsAgain(WorkspaceRecord.Integration integration) {
    return integration == null || switch (integration) {
      case DEFERRED, CONFLICT, CHECKS_RED, TIMED_OUT, CHANGES_REQUESTED, LAND_FAILED -> true;
      case INTEGRATED, SKIPPED, PUSHED, MERGED -> false;
    };
  }

  @Override
  public List<String> retriesDue() {
    if (pusher == null) {
      return List.of();
    }
    List<String> ids = new ArrayList<>();
    for (WorkspaceRecord ws : store.onDisk()) {
      if (ws.finishedAt() != null && ws.integration() == WorkspaceRecord.Integration.DEFERRED
          && ws.push().failures() > 0 && pusher.due(ws.push())) {
        ids.add(ws.itemId());
      }
    }
    return ids;
  }

  @Override
  public List<String> checksDue() {
    if (checksWait == null) {
      return List.of();
    }
    Instant now = clock.instant();
    List<String> ids = new ArrayList<>();
    store.checksWaits().forEach((id, wait) -> {
      if (wait.nextAt() == null || !now.isBefore(wait.nextAt())) {
        ids.add(id);
      }
    });
    return ids;
  }

  @Override
  public List<String> checksWaiting() {
    if (checksWait == null) {
      return List.of();
    }
    return List.copyOf(store.checksWaits().keySet());
  }

  @Override
  public Instant nextChecksPoll() {
    if (checksWait == null) {
      return null;
    }
    return store.checksWaits().values().stream().map(ChecksRecord::nextAt).filter(java.util.Objects::nonNull)
        .min(Instant::compareTo).orElse(null);
  }

  @Override
  public boolean awaitingChecks() {
    return checksWait != null && !store.checksWaits().isEmpty();
  }

  @Override
  public void lastSession(String itemId, LastSession session) {
    if (store.workspace(itemId).isPresent()) {
      store.checksResume(itemId, session == null ? null : new ChecksRecord.Resume(session.phase(),
          session.resume().profile(), session.resume().session()), clock.instant());
    }
  }

  @Override
  public SlowWork<ChecksReport> checkSlowly(String itemId) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null || checksWait == null) {
      return SlowWork.done(null);
    }
    return checksWait.pollSlowly(ws).then(checks -> {
      if ((checks.kind().equals("green") || checks.kind().equals("merged")) && ws.onDisk()) {
        worktrees.remove(ws); // as after a push without checks: the branch is what the remote has
      }
      return checks;
    });
  }

  /** merge: push's push and pull-request command are left to run off the scheduler thread. */
  @Override
  public SlowWork<IntegrationResult> integrateSlowly(String itemId, String title, List<ProjectCommand> gates) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null) {
      return SlowWork.done(IntegrationResult.NONE); // never ran a phase here (done in the backlog, say)
    }
    Instant now = clock.instant();
    if (ws.finishedAt() == null) {
      store.finished(itemId, now, now);
    }
    if (config.merge() == WorkspaceConfig.Merge.NONE) {
      store.integration(itemId, WorkspaceRecord.Integration.SKIPPED, null, now);
      return SlowWork.done(new IntegrationResult("skipped",
          "branch " + ws.branch() + " left for a pull request (execution.merge: none)"));
    }
    if (ws.integration() == WorkspaceRecord.Integration.INTEGRATED && ws.headCommit() != null
        && onBase(ws)) {
      // landed by a run killed before it recorded the item done: nothing to land again
      return SlowWork.done(new IntegrationResult("integrated", ws.branch() + " already landed on " + ws.baseBranch()));
    }
    try {
      ws = worktrees.restored(ws);
      Git.Place place = worktrees.verified(ws);
      worktrees.bases().watch(ws.baseBranch());
      // before the check of the branch and the read of HEAD: a step cut short may have moved it, not yet recorded
      undoInterrupted(ws, place);
      String lacking = lacksRecordedWork(ws);
      if (lacking != null) {
        store.integration(itemId, WorkspaceRecord.Integration.CONFLICT, lacking, now);
        return SlowWork.done(new IntegrationResult("refused", lacking));
      }
      // the base's tip, HEAD, its parents and trailers from git's files or one process (a rebase's checks, mostly answered)
      long moves = worktrees.bases().moves();
      Integrator.Head head = worktrees.remote() == null && config.merge() == WorkspaceConfig.Merge.REBASE
          ? integrator.head(place, ws.baseBranch()) : null;
      worktrees.checkBases(head == null ? Map.of() : Map.of("refs/heads/" + ws.baseBranch(), head.base()), moves);
      String dirty = git.ok(place, statusArgs(itemId)).out();
      if (!dirty.isBlank()) {
        return SlowWork.done(deferred(ws, "the worktree " + ws.path() + " has uncommitted changes: commit them on "
            + ws.branch() + " (or discard them); the next run integrates"));
      }
      return integrate(ws, place, title, now, gates, 1, head);
    } catch (WorktreeGuard.Breach | WorkspaceUnavailableException e) {
      String reason = "not integrated: " + e.getMessage();
      store.integration(itemId, WorkspaceRecord.Integration.CONFLICT, reason, now);
      return SlowWork.done(new IntegrationResult("refused", reason));
    } catch (GitException | IOException | UncheckedIOException e) {
      return SlowWork.done(deferred(ws, "integration failed: " + e.getMessage()));
    }
  }

  /**
   * The worktree put back at the item's branch when a landing step of an earlier run ended inside
   * it ({@link Worktrees#undoInterruptedLanding}): what a killed rebase or merge left there is not
   * a person's change to wait for, and the queue resumes by itself.
   */
  void undoInterrupted(WorkspaceRecord ws, Git.Place place) {
    if (worktrees.undoInterruptedLanding(ws, place)) {
      log.warn("{}: a landing step of an earlier run ended inside its worktree (a kill or a crash mid-rebase or "
          + "merge): the worktree is back at {} and the item lands again", ws.itemId(), ws.branch());
    }
  }

  /**
   * {@code step} (a rebase, a squash or a reset in the item's worktree, a batch's) with the worktree
   * marked as changed by orchestrate until it returns ({@link Worktrees#landingStep}); a step that
   * throws leaves the mark, and the next landing puts the worktree back.
   */
  <T> T step(WorkspaceRecord ws, String what, java.util.function.Supplier<T> step) {
    mark(ws, what);
    T result = step.get();
    worktrees.landingStepDone(ws.itemId());
    return result;
  }

  /** The item's worktree marked as changed by a landing step ({@link Worktrees#landingStep}) until it is unmarked. */
  void mark(WorkspaceRecord ws, String what) {
    try {
      worktrees.landingStep(ws.itemId(), what);
    } catch (IOException e) {
      throw new UncheckedIOException("could not mark the landing step of " + ws.itemId(), e);
    }
  }

  /** {@code git status} of the worktree, what is not the item's work left out ({@link Worktrees#notTheWork}). */
  String[] statusArgs(String itemId) {
    List<String> status = new ArrayList<>(List.of("status", "--porcelain", "--untracked-files=all",
        "--ignore-submodules=all", "--", "."));
    status.addAll(worktrees.notTheWork(itemId));
    return status.toArray(String[]::new);
  }

  /**
   * Rebases (or merges) the item's branch onto the base's tip, gates the result when there are
   * gates ({@link #gated}), and moves the base there; from {@code from}, the attempts so far plus one.
   */
  private SlowWork<IntegrationResult> integrate(WorkspaceRecord ws, Git.Place place, String title, Instant now,
      List<ProjectCommand> gates, int from) {
    return integrate(ws, place, title, now, gates, from, null);
  }

  /** {@link #integrate}, with what {@link Integrator#head} read just before at {@code place} (null: nothing). */
  private SlowWork<IntegrationResult> integrate(WorkspaceRecord ws, Git.Place place, String title, Instant now,
      List<ProjectCommand> gates, int from, Integrator.Head read) {
    Integrator.Head head = read;
    for (int attempt = from; attempt <= INTEGRATION_ATTEMPTS; attempt++) {
      String base = baseTip(ws.baseBranch());
      if (base == null) {
        return SlowWork.done(deferred(ws, "the base branch " + ws.baseBranch() + " has no commit: create it; the "
            + "next run integrates " + ws.branch()));
      }
      // marked from the rebase (or merge) until the branch's move is recorded: a run that dies in
      // between leaves the mark, and the next landing puts the worktree and the branch back
      mark(ws, config.merge() == WorkspaceConfig.Merge.MERGE ? "merge" : "rebase");
      Integrator.Integrated result = config.merge() == WorkspaceConfig.Merge.MERGE
          ? integrator.merge(ws, place, base, title)
          : integrator.rebase(ws, place, base, head);
      head = null; // HEAD may move from here on: the next attempt reads it again
      if (result.failure() != null || result.conflicts() != null || pusher != null) {
        worktrees.landingStepDone(ws.itemId()); // aborted, or the push records it: git left nothing half-done
      }
      if (result.failure() != null) {
        return SlowWork.done(deferred(ws, result.failure()));
      }
      if (result.conflicts() != null) {
        String reason = "integration into " + ws.baseBranch() + " conflicts in " + String.join(", ", result.conflicts())
            + ": resolve it on branch " + ws.branch() + " in " + ws.path() + " (e.g. git rebase " + ws.baseBranch()
            + "), commit, then unblock " + ws.itemId();
        store.integration(ws.itemId(), WorkspaceRecord.Integration.CONFLICT, reason, now);
        return SlowWork.done(new IntegrationResult("conflict", reason));
      }
      if (pusher != null) {
        return pushed(ws, base, result.tip(), title);
      }
      if (!gates.isEmpty()) {
        String tip = config.merge() == WorkspaceConfig.Merge.REBASE
            ? integrator.squash(ws, place, base, result.tip(), title) : result.tip();
        ws = rebased(ws, config.merge() == WorkspaceConfig.Merge.REBASE ? tip : null);
        worktrees.landingStepDone(ws.itemId());
        return gated(ws, base, tip, title, now, gates, attempt);
      }
      ws = rebased(ws, config.merge() == WorkspaceConfig.Merge.REBASE ? result.tip() : null);
      worktrees.landingStepDone(ws.itemId());
      Integrator.Advance advance = advance(ws, base, result.tip());
      if (advance == Integrator.Advance.DONE) {
        store.landed(result.landed() != null ? result.landed() : integrator.landed(place, base, result.tip(), read),
            clock.instant());
        return SlowWork.done(integrated(ws, result.tip()));
      }
      if (advance instanceof Integrator.Advance.Refused refused) {
        return SlowWork.done(deferred(ws, refused.reason()));
      }
      // the base branch moved meanwhile (the user's commit): rebase again onto its new tip
      worktrees.checkBases();
    }
    return SlowWork.done(deferred(ws,
        "the base branch " + ws.baseBranch() + " kept moving during integration; the next run tries again"));
  }

  /**
   * The integration gates run, off the scheduler thread, on exactly the tree that will land
   * ({@code tip}: the item's work on top of {@code base}) in a landing tree of its own
   * ({@link Worktrees#landingTree}); then, back on the scheduler thread, the base moves to
   * {@code tip} only if every gate passed, and only from {@code base} (a compare-and-swap): a base
   * that moved meanwhile means a new tree, rebased and gated again. A red gate lands nothing: the
   * result is {@code integration_failed} with the gate's output, which blocks the item.
   */
  private SlowWork<IntegrationResult> gated(WorkspaceRecord ws, String base, String tip, String title, Instant now,
      List<ProjectCommand> gates, int attempt) {
    Path tree;
    try {
      tree = worktrees.landingTree(ws.itemId(), tip);
    } catch (IOException | GitException e) {
      worktrees.dropLandingTree(ws.itemId());
      return SlowWork.done(deferred(ws, "could not check out " + abbrev(tip) + " to gate it: " + e.getMessage()));
    }
    Path workDir = tree.resolve(worktrees.repository().subdirectory());
    return new Offloaded<LandingGates.Runs, IntegrationResult>(
        stopper -> LandingGates.run(gates, workDir, commandEnv, gateWrap(workDir), stopper),
        (runs, self) -> {
          worktrees.dropLandingTree(ws.itemId());
          if (runs.stopped()) {
            return null; // a stop of the run: nothing recorded, the next run integrates
          }
          IntegrationResult.Attempt tried = new IntegrationResult.Attempt(base, tip, runs.ends(), runs.millis());
          if (!runs.passed()) {
            return red(ws, base, tip, runs).with(tried);
          }
          Integrator.Advance advance = advance(ws, base, tip);
          if (advance == Integrator.Advance.DONE) {
            store.landed(integrator.landed(checkout, base, tip), clock.instant());
            IntegrationResult done = integrated(ws, tip);
            return new IntegrationResult(done.kind(), done.message() + " after its gates passed there ("
                + runs.summary() + ")").with(tried);
          }
          if (advance instanceof Integrator.Advance.Refused refused) {
            return deferred(ws, refused.reason());
          }
          // the base moved while the gates ran: what they passed is not what would land now
          worktrees.checkBases();
          SlowWork<IntegrationResult> again = integrate(ws, worktrees.verified(ws), title, now, gates, attempt + 1);
          if (again.offThread()) {
            self.then(again);
            return null;
          }
          return again.finish();
        });
  }

  /**
   * A red integration gate: nothing lands, the item's branch (its worktree's next start) becomes the
   * tree that was gated, its work on top of the base's tip, so that its agent fixes it there, and
   * the red round is counted.
   */
  IntegrationResult red(WorkspaceRecord ws, String base, String tip, LandingGates.Runs runs) {
    Instant at = clock.instant();
    String report = "integration gate " + runs.red().name() + " failed on " + ws.branch() + " rebased onto "
        + ws.baseBranch() + " at " + abbrev(base) + " (tested " + abbrev(tip) + "): " + runs.report(mask);
    String head = git.commit(checkout, "refs/heads/" + ws.branch());
    if (head != null && !head.equals(tip)) {
      // merge: the merge commit, the base's tip with the branch in it, becomes the branch's head
      git.run(checkout, "update-ref", "-m", "orchestrate: integration gates red", "refs/heads/" + ws.branch(), tip,
          head);
    }
    worktrees.moved(ws, tip);
    // the fix lands folded with the red state into one commit on the base: never a red commit of its own
    store.landingFold(ws.itemId(), base, at);
    int round = store.landingRounds(ws.itemId()) + 1;
    store.landingRounds(ws.itemId(), round, at);
    store.integration(ws.itemId(), WorkspaceRecord.Integration.CONFLICT, report, at);
    log.warn("{}: not integrated: integration gate {} failed (round {})", ws.itemId(), runs.red().name(), round);
    return new IntegrationResult("integration_failed", report, round);
  }

  static String abbrev(String commit) {
    return commit.substring(0, Math.min(12, commit.length()));
  }

  /**
   * merge: push: the rebased branch recorded as the item's head, then pushed (the base branch never
   * moves): the push and the pull-request command run off the scheduler thread.
   */
  private SlowWork<IntegrationResult> pushed(WorkspaceRecord ws, String base, String tip, String title) {
    Instant now = clock.instant();
    if (!tip.equals(ws.headCommit())) {
      worktrees.moved(ws, tip);
    }
    return pusher.pushSlowly(ws, base, tip, title).then(outcome -> {
      try {
        return afterPush(ws, base, tip, outcome);
      } catch (GitException | UncheckedIOException e) {
        return deferred(ws, "integration failed: " + e.getMessage());
      }
    });
  }

  private IntegrationResult afterPush(WorkspaceRecord ws, String base, String tip, Pusher.Outcome outcome) {
    if (outcome.blocks()) {
      store.integration(ws.itemId(), WorkspaceRecord.Integration.CONFLICT, outcome.message(), clock.instant());
      return new IntegrationResult("push_failed", outcome.message());
    }
    if (!outcome.pushed()) {
      return deferred(ws, outcome.message());
    }
    store.integration(ws.itemId(), WorkspaceRecord.Integration.PUSHED, null, clock.instant());
    // the jobs' phase commits as the pushed branch has them (a rebase gives them new ids)
    store.landed(integrator.landed(checkout, base, tip), clock.instant());
    if (checksWait != null) {
      // kept until the checks are green: a red report sends the item back to work here, its agent's
      // session continuing over the files it left
      checksWait.start(ws.itemId());
      return new IntegrationResult("awaiting_checks", outcome.message() + "; awaiting its checks");
    }
    worktrees.remove(ws); // the branch stays: it is what the remote and the pull request have
    return new IntegrationResult("pushed", outcome.message());
  }

  IntegrationResult deferred(WorkspaceRecord ws, String reason) {
    store.integration(ws.itemId(), WorkspaceRecord.Integration.DEFERRED, reason, clock.instant());
    log.warn("{}: not integrated: {}", ws.itemId(), reason);
    return new IntegrationResult("deferred", reason);
  }

  IntegrationResult integrated(WorkspaceRecord ws, String tip) {
    Instant now = clock.instant();
    store.headMoved(ws.itemId(), tip, now);
    store.landingRounds(ws.itemId(), 0, now);
    store.integration(ws.itemId(), WorkspaceRecord.Integration.INTEGRATED, null, now);
    worktrees.remove(ws);
    if (config.deleteMergedBranches()) {
      // rebased, the branch is at what landed; merged, the merge commit is on the base only
      worktrees.deleteBranch(ws.branch(), config.merge() == WorkspaceConfig.Merge.REBASE ? tip : null);
    }
    SharedRemote remote = worktrees.remote();
    if (remote != null) {
      try {
        remote.drop(ws.itemId()); // the base has its work now
      } catch (GitException e) {
        log.warn("{}: landed, but its ref {} stays on {}: {}", ws.itemId(), SharedRemote.itemRef(ws.itemId()),
            remote.name(), e.getMessage());
      }
    }
    return new IntegrationResult("integrated", ws.branch() + " integrated into " + ws.baseBranch()
        + (remote == null ? "" : " on " + remote.name()) + " at " + tip.substring(0, Math.min(12, tip.length())));
  }

  /**
   * The base's tip that work lands on: the remote's, fetched now ({@code execution.landing: remote}),
   * else this checkout's as orchestrate last saw or moved it; null when it has no commit.
   */
  String baseTip(String branch) {
    SharedRemote remote = worktrees.remote();
    return remote == null ? worktrees.bases().expected(branch) : remote.fetchBase(branch);
  }

  /**
   * Moves the base branch from {@code base} to {@code tip}: on the remote by a push with a lease on
   * {@code base} (another runner that landed first makes it {@link Integrator.Advance#MOVED}), else in
   * this checkout ({@link Integrator#advanceBase}).
   */
  Integrator.Advance advance(WorkspaceRecord ws, String base, String tip) {
    SharedRemote remote = worktrees.remote();
    if (remote == null) {
      // moved and recorded as one: an inspection on a worker never sees it moved and not recorded
      return worktrees.bases().ownMove(ws.baseBranch(), tip,
          () -> integrator.advanceBase(ws, base, tip, worktrees.guardRoot()), a -> a == Integrator.Advance.DONE);
    }
    try {
      return remote.land(ws.baseBranch(), base, tip) == SharedRemote.Landed.DONE
          ? Integrator.Advance.DONE : Integrator.Advance.MOVED;
    } catch (GitException e) {
      return new Integrator.Advance.Refused(e.getMessage() + "; the next run integrates " + ws.branch());
    }
  }

  /** Whether the base branch (the remote's, with execution.landing: remote) has the item's last recorded commit. */
  private boolean onBase(WorkspaceRecord ws) {
    SharedRemote remote = worktrees.remote();
    String base = remote == null ? "refs/heads/" + ws.baseBranch() : remote.fetchBase(ws.baseBranch());
    return base != null && git.run(checkout, "merge-base", "--is-ancestor", ws.headCommit(), base).ok();
  }

  /**
   * Why the item's branch must not be pushed or integrated, with {@code execution.landing: remote}:
   * its tip lacks the item's last recorded phase commit (a branch left in this clone from an earlier
   * hold of the item, which diverged from what other runners recorded since); null when it has it,
   * or when work meets in this checkout (its branch is the only one: a person's rebase to resolve a
   * conflict is theirs to land). Both commits are named.
   */
  String lacksRecordedWork(WorkspaceRecord ws) {
    if (worktrees.remote() == null) {
      return null;
    }
    String tip = git.commit(checkout, "refs/heads/" + ws.branch());
    // the usual case, the branch still at the recorded commit, needs no merge-base: a commit is its own ancestor
    if (tip != null && (tip.equals(ws.headCommit())
        || git.run(checkout, "merge-base", "--is-ancestor", ws.headCommit(), tip).ok())) {
      return null;
    }
    return "not integrated: branch " + ws.branch() + " in " + worktrees.repository().top() + " is at "
        + (tip == null ? "(none)" : tip) + ", which lacks the item's last recorded phase commit " + ws.headCommit()
        + ": orchestrate never lands a branch without its recorded work. If the branch holds your fix, run orchestrate "
        + "unblock " + ws.itemId() + " --rebase in this clone (it records the branch and pushes it to "
        + worktrees.remote().name() + "); else put it back (git branch -f " + ws.branch() + " " + ws.headCommit()
        + ") and unblock " + ws.itemId();
  }

  /**
   * The item's branch was rebased (or squashed) to {@code tip} for landing: recorded as its head (and
   * pushed to the shared remote), so that its branch always holds its recorded work; null: unchanged.
   */
  private WorkspaceRecord rebased(WorkspaceRecord ws, String tip) {
    if (tip == null || tip.equals(ws.headCommit())) {
      return ws;
    }
    worktrees.moved(ws, tip);
    return store.workspace(ws.itemId()).orElse(ws);
  }
}
