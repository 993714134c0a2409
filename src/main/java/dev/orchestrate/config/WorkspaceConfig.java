package dev.orchestrate.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where agents work (the {@code execution.workspace*} keys): in the backlog's directory, shared by
 * every item ({@code shared}, the default), or each item in its own git worktree and branch
 * ({@code worktree}), with a commit per successful phase and the branch integrated at Done.
 *
 * @param mode                 shared or worktree
 * @param baseBranch           the branch items start from and are integrated into; null: the branch
 *                             checked out when the run starts
 * @param merge                how a done item's branch reaches the base branch
 * @param deleteMergedBranches delete {@code orchestrate/<ID>} once integrated (the base has its commits)
 * @param commitAuthor         name and email of orchestrate's phase commits
 * @param destructiveRunsAlone under worktree, whether a destructive phase still runs alone
 * @param setup                {@code workspace.setup}: commands run once in a new worktree before its
 *                             first agent (e.g. {@code npm ci})
 * @param copy                 {@code workspace.copy}: paths relative to the repository's top, copied
 *                             from the user's checkout into each new worktree and never committed
 * @param remote               {@code execution.remote}: where {@code merge: push} pushes the item's branch
 * @param pullRequest          {@code execution.pull_request}: the command run once per item after its
 *                             first successful push (placeholders not yet substituted), or null
 * @param checks               {@code execution.checks} and its keys: the command polled after each push
 *                             until it says green or red (docs/workspaces.md), or null
 * @param integrationBatch     {@code execution.integration_batch}: how many landing items one run of
 *                             the integration gates may land together (1: one at a time)
 * @param landOn               {@code execution.landing}: where work meets and lands, the checkout's own
 *                             branches ({@code local}) or {@code remote}'s (several machines: every phase
 *                             commit pushed there, integration onto the remote's base)
 */
public record WorkspaceConfig(Mode mode, String baseBranch, Merge merge, boolean deleteMergedBranches,
    Author commitAuthor, boolean destructiveRunsAlone, List<ProjectCommand> setup, List<String> copy,
    String remote, ProjectCommand pullRequest, ChecksConfig checks, int integrationBatch, LandOn landOn) {
  /** The most items one integration batch may hold. */
  public static final int MAX_INTEGRATION_BATCH = 32;

  public static final Author DEFAULT_AUTHOR = new Author("orchestrate", "orchestrate@localhost");
  public static final String DEFAULT_REMOTE = "origin";
  /** How long {@code execution.pull_request} may run without {@code pull_request_timeout}. */
  public static final java.time.Duration DEFAULT_PULL_REQUEST_TIMEOUT = java.time.Duration.ofMinutes(5);

  public WorkspaceConfig {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(merge, "merge");
    Objects.requireNonNull(commitAuthor, "commitAuthor");
    setup = setup == null ? List.of() : List.copyOf(setup);
    copy = copy == null ? List.of() : List.copyOf(copy);
    remote = remote == null ? DEFAULT_REMOTE : remote;
    landOn = landOn == null ? LandOn.LOCAL : landOn;
    if (integrationBatch < 1 || integrationBatch > MAX_INTEGRATION_BATCH) {
      throw new IllegalArgumentException("integration_batch must be 1 to " + MAX_INTEGRATION_BATCH);
    }
  }

  public WorkspaceConfig(Mode mode, String baseBranch, Merge merge, boolean deleteMergedBranches, Author commitAuthor,
      boolean destructiveRunsAlone, List<ProjectCommand> setup, List<String> copy, String remote,
      ProjectCommand pullRequest, ChecksConfig checks) {
    this(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone, setup, copy, remote,
        pullRequest, checks, 1, LandOn.LOCAL);
  }

  /** This config with {@code execution.integration_batch}. */
  public WorkspaceConfig withIntegrationBatch(int batch) {
    return new WorkspaceConfig(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone,
        setup, copy, remote, pullRequest, checks, batch, landOn);
  }

  public WorkspaceConfig(Mode mode, String baseBranch, Merge merge, boolean deleteMergedBranches, Author commitAuthor,
      boolean destructiveRunsAlone, List<ProjectCommand> setup, List<String> copy) {
    this(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone, setup, copy, null, null);
  }

  public WorkspaceConfig(Mode mode, String baseBranch, Merge merge, boolean deleteMergedBranches, Author commitAuthor,
      boolean destructiveRunsAlone, List<ProjectCommand> setup, List<String> copy, String remote,
      ProjectCommand pullRequest) {
    this(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone, setup, copy, remote,
        pullRequest, null);
  }

  /** This config with {@code execution.checks} (null: none). */
  public WorkspaceConfig withChecks(ChecksConfig next) {
    return new WorkspaceConfig(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone,
        setup, copy, remote, pullRequest, next, integrationBatch, landOn);
  }

  WorkspaceConfig(Mode mode, String baseBranch, Merge merge, boolean deleteMergedBranches, Author commitAuthor,
      boolean destructiveRunsAlone) {
    this(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone, List.of(), List.of());
  }

  /** This config with the {@code workspace:} section's set-up commands and copied paths. */
  public WorkspaceConfig withPreparation(List<ProjectCommand> commands, List<String> paths) {
    return new WorkspaceConfig(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone,
        commands, paths, remote, pullRequest, checks, integrationBatch, landOn);
  }

  /** This config with {@code merge: push}'s remote and pull-request command (null: none). */
  public WorkspaceConfig withPush(String remote, ProjectCommand pullRequest) {
    return new WorkspaceConfig(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone,
        setup, copy, remote, pullRequest, checks, integrationBatch, landOn);
  }

  public static WorkspaceConfig defaults() {
    return new WorkspaceConfig(Mode.SHARED, null, Merge.REBASE, true, DEFAULT_AUTHOR, false);
  }

  public boolean worktrees() {
    return mode == Mode.WORKTREE;
  }

  /** This config with {@code execution.landing}. */
  public WorkspaceConfig withLandOn(LandOn where) {
    return new WorkspaceConfig(mode, baseBranch, merge, deleteMergedBranches, commitAuthor, destructiveRunsAlone,
        setup, copy, remote, pullRequest, checks, integrationBatch, where);
  }

  /**
   * Whether work meets on {@code execution.remote} ({@code execution.landing: remote}): each phase
   * commit is pushed there before it counts, worktrees start from the remote's base branch, and
   * integration lands on it (docs/workspaces.md, "Several machines").
   */
  public boolean landsOnRemote() {
    return mode == Mode.WORKTREE && landOn == LandOn.REMOTE;
  }

  /** {@code execution.landing}: where work meets and lands. */
  public enum LandOn {
    /** The checkout's own branches: one machine (every runner in the same checkout). */
    LOCAL,
    /** {@code execution.remote}: any number of clones, on any number of machines. */
    REMOTE;

    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** {@code execution.workspace}. */
  public enum Mode {
    SHARED, WORKTREE;

    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * {@code execution.merge}: rebase or merge into the base branch, none (the branch is left), or push
   * (the branch rebased onto the base and pushed to {@code remote}, the base branch never moved).
   */
  public enum Merge {
    REBASE, MERGE, NONE, PUSH;

    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** A commit identity, written {@code Name <email>} in the config. */
  public record Author(String name, String email) {
    private static final Pattern FORM = Pattern.compile("\\s*([^<>\\n]*?)\\s*<([^<>\\s]+)>\\s*");

    public Author {
      if (name == null || name.isBlank() || email == null || email.isBlank()) {
        throw new IllegalArgumentException("an author needs a name and an email");
      }
    }

    /** {@code "Name <email>"}, or empty when the text is not of that form. */
    /** The environment that makes git record this author and committer. */
    public java.util.Map<String, String> environment() {
      return java.util.Map.of("GIT_AUTHOR_NAME", name, "GIT_AUTHOR_EMAIL", email, "GIT_COMMITTER_NAME", name,
          "GIT_COMMITTER_EMAIL", email);
    }

    public static java.util.Optional<Author> parse(String text) {
      Matcher m = FORM.matcher(text);
      if (!m.matches() || m.group(1).isBlank()) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(new Author(m.group(1), m.group(2)));
    }

    @Override
    public String toString() {
      return name + " <" + email + ">";
    }
  }
}
