package dev.orchestrate.landing;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.LandingItem;
import dev.orchestrate.item.SlowWork;
import dev.orchestrate.item.WorkspaceUnavailableException;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitException;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceStore;
import dev.orchestrate.workspace.WorktreeGuard;
import dev.orchestrate.workspace.Worktrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code execution.integration_batch} (docs/verification.md, "Batches"), for {@link Landing}: several
 * landing items, in queue order, each rebased onto the one before it (the first onto the base's tip),
 * gated once on the last of those tips; green, the base moves there and all of them land. Red, the
 * chain is bisected: the gates run on prefixes of it until the first item whose work turns it red
 * is found; the items before it land (their prefix passed), it is red (back to its agent with the
 * report), and the items after it go back to the queue with their branches as they were.
 *
 * <p>Each prefix is exactly a tree that would land, so nothing lands that no gate has seen as it
 * lands. The gates run off the scheduler thread, one run at a time; each decision between them is
 * taken back on it.
 */
final class Batch {
  private final Landing landing;
  private final Git git;
  private final Worktrees worktrees;
  private final Integrator integrator;
  private final WorkspaceStore store;
  private final Clock clock;
  private final Git.Place checkout;

  /** One item of the chain: its worktree, its branch's head before the batch, and its rebased tip. */
  private record Member(LandingItem item, WorkspaceRecord ws, Git.Place place, String original, String tip) {
  }

  Batch(Landing landing, Git git, Worktrees worktrees, Integrator integrator, WorkspaceStore store, Clock clock,
      Git.Place checkout) {
    this.landing = landing;
    this.git = git;
    this.worktrees = worktrees;
    this.integrator = integrator;
    this.store = store;
    this.clock = clock;
    this.checkout = checkout;
  }

  SlowWork<Map<String, IntegrationResult>> start(List<LandingItem> items) {
    Map<String, IntegrationResult> results = new LinkedHashMap<>();
    List<Member> chain = new ArrayList<>();
    String base = null;
    for (LandingItem item : items) {
      WorkspaceRecord ws = store.workspace(item.itemId()).orElse(null);
      if (ws == null) {
        results.put(item.itemId(), IntegrationResult.NONE);
        continue;
      }
      Instant now = clock.instant();
      if (ws.finishedAt() == null) {
        store.finished(item.itemId(), now, now);
      }
      try {
        ws = worktrees.restored(ws);
        Git.Place place = worktrees.verified(ws);
        worktrees.bases().watch(ws.baseBranch());
        if (base == null) {
          worktrees.checkBases();
          base = landing.baseTip(ws.baseBranch());
          if (base == null) {
            results.put(item.itemId(), landing.deferred(ws, "the base branch " + ws.baseBranch() + " has no commit"));
            continue;
          }
        }
        landing.undoInterrupted(ws, place);
        String lacking = landing.lacksRecordedWork(ws);
        if (lacking != null) {
          store.integration(item.itemId(), WorkspaceRecord.Integration.CONFLICT, lacking, now);
          results.put(item.itemId(), new IntegrationResult("refused", lacking));
          continue;
        }
        if (!git.ok(place, landing.statusArgs(item.itemId())).out().isBlank()) {
          results.put(item.itemId(), landing.deferred(ws, "the worktree " + ws.path() + " has uncommitted changes: "
              + "commit them on " + ws.branch() + " (or discard them); the next run integrates"));
          continue;
        }
        String original = git.commit(checkout, "refs/heads/" + ws.branch());
        String onto = chain.isEmpty() ? base : chain.get(chain.size() - 1).tip();
        // marked from the rebase until the batch is over: a run that dies in between leaves a branch
        // moved and not recorded, which the next landing puts back (Worktrees.undoInterruptedLanding)
        landing.mark(ws, "rebase (in a batch)");
        Integrator.Integrated r = integrator.rebase(ws, place, onto);
        if (r.failure() != null || r.conflicts() != null) {
          worktrees.landingStepDone(ws.itemId()); // aborted: git left nothing half-done
        }
        if (r.failure() != null) {
          results.put(item.itemId(), landing.deferred(ws, r.failure()));
        } else if (r.conflicts() != null) {
          String reason = "integration into " + ws.baseBranch() + " (in a batch, after "
              + (chain.isEmpty() ? "nothing" : chain.get(chain.size() - 1).item().itemId()) + ") conflicts in "
              + String.join(", ", r.conflicts()) + ": resolve it on branch " + ws.branch() + " in " + ws.path()
              + ", commit, then unblock " + ws.itemId();
          store.integration(ws.itemId(), WorkspaceRecord.Integration.CONFLICT, reason, now);
          results.put(item.itemId(), new IntegrationResult("conflict", reason));
        } else {
          String tip = item.gates().isEmpty() ? r.tip() : integrator.squash(ws, place, onto, r.tip(), item.title());
          chain.add(new Member(item, ws, place, original, tip));
        }
      } catch (WorktreeGuard.Breach | WorkspaceUnavailableException e) {
        String reason = "not integrated: " + e.getMessage();
        store.integration(item.itemId(), WorkspaceRecord.Integration.CONFLICT, reason, now);
        results.put(item.itemId(), new IntegrationResult("refused", reason));
      } catch (GitException | IOException | UncheckedIOException e) {
        results.put(item.itemId(), landing.deferred(ws, "integration failed: " + e.getMessage()));
      }
    }
    if (chain.isEmpty()) {
      return SlowWork.done(results);
    }
    List<ProjectCommand> gates = gates(chain);
    return new Bisection(chain, base, gates, results).test(chain.size()).then(done -> {
      chain.forEach(m -> worktrees.landingStepDone(m.item().itemId())); // landed, or put back as they were
      return done;
    });
  }

  /** Every member's gates, each name once, in chain order. */
  private static List<ProjectCommand> gates(List<Member> chain) {
    Map<String, ProjectCommand> gates = new LinkedHashMap<>();
    chain.forEach(m -> m.item().gates().forEach(g -> gates.putIfAbsent(g.name(), g)));
    return List.copyOf(gates.values());
  }

  /** The search for the first member that turns the chain red, one gate run at a time. */
  private final class Bisection {
    private final List<Member> chain;
    private final String base;
    private final List<ProjectCommand> gates;
    private final Map<String, IntegrationResult> results;
    /** The first prefix not known green, and the shortest known red (1-based lengths). */
    private int lo = 1;
    private int hi;
    private final Map<Integer, LandingGates.Runs> red = new LinkedHashMap<>();
    /** The gate runs of the prefixes found green, by length. */
    private final Map<Integer, LandingGates.Runs> green = new LinkedHashMap<>();

    Bisection(List<Member> chain, String base, List<ProjectCommand> gates, Map<String, IntegrationResult> results) {
      this.chain = chain;
      this.base = base;
      this.gates = gates;
      this.results = results;
      this.hi = chain.size();
    }

    /** Gates the first {@code length} members' tree, off the scheduler thread, then decides. */
    SlowWork<Map<String, IntegrationResult>> test(int length) {
      String tip = chain.get(length - 1).tip();
      String key = chain.get(0).item().itemId();
      Path tree;
      try {
        tree = worktrees.landingTree(key, tip);
      } catch (IOException | GitException e) {
        worktrees.dropLandingTree(key);
        return SlowWork.done(requeueAll("could not check out " + Landing.abbrev(tip) + " to gate it: "
            + e.getMessage()));
      }
      Path workDir = tree.resolve(worktrees.repository().subdirectory());
      return new Offloaded<LandingGates.Runs, Map<String, IntegrationResult>>(
          stopper -> LandingGates.run(gates, workDir, landing.commandEnv(), landing.gateWrap(workDir), stopper),
          (runs, self) -> {
            worktrees.dropLandingTree(key);
            if (runs.stopped()) {
              restore(chain);
              return null; // a stop of the run: nothing recorded; the next run lands them
            }
            if (runs.passed()) {
              lo = length + 1;
              green.put(length, runs);
            } else {
              hi = length;
              red.put(length, runs);
            }
            SlowWork<Map<String, IntegrationResult>> next = lo >= hi || runs.passed() && length == chain.size()
                ? SlowWork.done(finish()) : test((lo + hi) / 2);
            if (next.offThread()) {
              self.then(next);
              return null;
            }
            return next.finish();
          });
    }

    /**
     * The search is over: the longest green prefix lands (the whole chain when its gates passed),
     * the member after it is red, the rest go back to the queue.
     */
    private Map<String, IntegrationResult> finish() {
      int landed = red.isEmpty() ? chain.size() : hi - 1;
      String tip = landed == 0 ? base : chain.get(landed - 1).tip();
      if (landed > 0) {
        Integrator.Advance advance = landing.advance(chain.get(0).ws(), base, tip);
        if (advance instanceof Integrator.Advance.Refused refused) {
          restore(chain);
          chain.forEach(m -> results.put(m.item().itemId(), landing.deferred(m.ws(), refused.reason())));
          return results;
        }
        if (advance != Integrator.Advance.DONE) {
          return requeueAll("the base branch moved while the batch's gates ran; it is gated again");
        }
        LandingGates.Runs passed = green.get(landed);
        IntegrationResult.Attempt attempt = new IntegrationResult.Attempt(base, tip, passed.ends(), passed.millis());
        String from = base;
        for (Member m : chain.subList(0, landed)) {
          store.landed(integrator.landed(checkout, from, m.tip()), clock.instant());
          IntegrationResult done = landing.integrated(m.ws(), m.tip());
          results.put(m.item().itemId(), new IntegrationResult(done.kind(), done.message() + " in a batch of "
              + landed + " whose gates passed on it (" + passed.summary() + ")").with(attempt));
          from = m.tip();
        }
      }
      if (landed < chain.size()) {
        Member culprit = chain.get(landed);
        LandingGates.Runs failed = red.get(landed + 1);
        results.put(culprit.item().itemId(), landing.red(culprit.ws(), tip, culprit.tip(), failed)
            .with(new IntegrationResult.Attempt(tip, culprit.tip(), failed.ends(), failed.millis())));
        List<Member> after = chain.subList(landed + 1, chain.size());
        restore(after);
        after.forEach(m -> results.put(m.item().itemId(), requeued(m, "back in the queue: the batch's gates were "
            + "red on " + culprit.item().itemId() + ", before it")));
      }
      return results;
    }

    private Map<String, IntegrationResult> requeueAll(String why) {
      restore(chain);
      chain.forEach(m -> results.put(m.item().itemId(), requeued(m, why)));
      return results;
    }
  }

  /** The members' branches and worktrees as they were before the batch rebased them. */
  private void restore(List<Member> members) {
    for (Member m : members) {
      try {
        if (m.original() != null) {
          landing.step(m.ws(), "reset", () -> git.ok(m.place(), "reset", "--quiet", "--hard", m.original()));
        }
      } catch (GitException | UncheckedIOException e) {
        landing.deferred(m.ws(), "could not put " + m.ws().branch() + " back after a batch: " + e.getMessage());
      }
    }
  }

  private static IntegrationResult requeued(Member m, String why) {
    return new IntegrationResult("queued", why);
  }
}
