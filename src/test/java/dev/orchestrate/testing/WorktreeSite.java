package dev.orchestrate.testing;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.Placement;
import dev.orchestrate.landing.Landing;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.WorkspaceStore;
import dev.orchestrate.workspace.Worktrees;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * The worktrees of a test's checkout and how their work lands, opened as a run opens them: the
 * state directory is {@code <checkout>/.orchestrate}. The methods a test calls most are here, each
 * the one of {@link Worktrees} or {@link Landing} that a run would call.
 */
public final class WorktreeSite {
  public final Worktrees worktrees;
  public final Landing landing;

  private WorktreeSite(Worktrees worktrees, Landing landing) {
    this.worktrees = worktrees;
    this.landing = landing;
  }

  /** Opens the worktrees of the repository at {@code checkout}, with the default worktree retention. */
  public static WorktreeSite open(Path checkout, WorkspaceConfig config, WorkspaceStore store, Clock clock) {
    return open(checkout, config, RetentionConfig.WorktreePolicy.DEFAULT, store, clock);
  }

  public static WorktreeSite open(Path checkout, WorkspaceConfig config, RetentionConfig.WorktreePolicy retention,
      WorkspaceStore store, Clock clock) {
    return open(checkout, checkout.resolve(".orchestrate"), config, retention, store, clock);
  }

  /**
   * @param backlogDir where the repository is found from (a subdirectory of the checkout, say)
   * @param state      the state directory: worktrees and job directories go there
   */
  public static WorktreeSite open(Path backlogDir, Path state, WorkspaceConfig config,
      RetentionConfig.WorktreePolicy retention, WorkspaceStore store, Clock clock) {
    return open(backlogDir, state, config, retention, store, clock, new Git());
  }

  /** As above, with the {@link Git} it runs (one that records its commands, say). */
  public static WorktreeSite open(Path backlogDir, Path state, WorkspaceConfig config,
      RetentionConfig.WorktreePolicy retention, WorkspaceStore store, Clock clock, Git git) {
    Repository repository = Repository.discover(git, backlogDir, config.baseBranch());
    Worktrees worktrees = new Worktrees(git, repository, config, retention, store, state.resolve("worktrees"), clock)
        .open();
    return new WorktreeSite(worktrees, new Landing(git, worktrees, config, store, clock, state.resolve("jobs")).open());
  }

  public Placement prepare(String itemId, Path backlogDir) {
    return worktrees.prepare(itemId, backlogDir);
  }

  public String commit(String itemId, String phase, int attempt, long jobId, String summary) {
    return worktrees.commit(itemId, phase, attempt, jobId, summary);
  }

  public void committed(String itemId) {
    worktrees.committed(itemId);
  }

  /** A successful attempt as the scheduler records it: the commit, then its confirmation. */
  public String succeed(String itemId, String phase, int attempt, String summary) {
    String commit = commit(itemId, phase, attempt, 1, summary);
    committed(itemId);
    return commit;
  }

  public Placement prepare(String itemId, Path backlogDir, boolean keep) {
    return worktrees.prepare(itemId, backlogDir, keep);
  }

  public void setUp(String itemId) {
    worktrees.setUp(itemId);
  }

  public String inspect(String itemId) {
    return worktrees.inspect(itemId);
  }

  public void blocked(String itemId) {
    worktrees.blocked(itemId);
  }

  public void maintain() {
    worktrees.maintain();
  }

  /** Lands a done item's work with no integration gates. */
  public IntegrationResult integrate(String itemId, String title) {
    return landing.integrate(itemId, title, List.of());
  }

  /** Lands a done item's work after {@code gates} passed on it as it would land. */
  public IntegrationResult integrate(String itemId, String title, List<ProjectCommand> gates) {
    return landing.integrate(itemId, title, gates);
  }

  public ChecksReport check(String itemId) {
    return landing.check(itemId);
  }

  public List<String> integrationPending() {
    return landing.integrationPending();
  }

  public List<String> retriesDue() {
    return landing.retriesDue();
  }

  public List<String> checksDue() {
    return landing.checksDue();
  }

  public boolean awaitingChecks() {
    return landing.awaitingChecks();
  }
}
