package dev.orchestrate.app;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.error.OrchestrateException;
import dev.orchestrate.jobs.Preflight;
import dev.orchestrate.landing.Landing;
import dev.orchestrate.workspace.CopiedFiles;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitException;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.SharedRemote;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a run checks of its project before it takes the lock or opens the state, so that a mistake
 * exits 2 with its fix and leaves nothing behind (docs/verification.md, docs/workspaces.md): every
 * agent profile's program starts and can keep a cost budget, every gate and set-up step starts,
 * and with worktrees the repository, its base branch, the copied files, the remotes and the gates'
 * tracked scripts are there. Each problem is a {@link Refused} (a usage error) thrown where it is
 * found.
 */
public final class RunPreflight {
  private RunPreflight() {
  }

  /** A check failed: one line, what and how to fix it; exit 2. */
  public static final class Refused extends OrchestrateException {
    Refused(String message) {
      super(Kind.USAGE, message);
    }
  }

  /** An agent is configured: a run without one could only fail every item. */
  public static void agentConfigured(Config config) {
    if (config.agent().command().isEmpty()) {
      throw new Refused("no agent command configured: set agent.preset (claude, codex, gemini, opencode) or "
          + "agent.command in " + config.source().map(Path::toString).orElse("orchestrate.yaml")
          + " (see 'orchestrate init --agent claude')");
    }
  }

  /**
   * Every agent profile can keep the token budget named by {@code tokenBudget} (the key or flag
   * that set it; null: none): a plain command reports no tokens.
   */
  public static void tokenBudget(Config config, String tokenBudget) {
    for (AgentConfig profile : config.profiles().values()) {
      Preflight.Problem unkeepable = Preflight.tokenBudget(profile, tokenBudget);
      if (unkeepable != null) {
        throw new Refused(profile == config.agent() ? unkeepable.message()
            : "agents." + profile.profileName() + ": " + unkeepable.message());
      }
    }
  }

  /**
   * Every agent profile can keep the cost budget named by {@code costBudget} (the key or flag that
   * set it; null: none): an agent that reports no cost cannot.
   */
  public static void costBudget(Config config, String costBudget) {
    for (AgentConfig profile : config.profiles().values()) {
      Preflight.Problem unkeepable = Preflight.costBudget(profile, costBudget);
      if (unkeepable != null) {
        throw new Refused(profile == config.agent() ? unkeepable.message()
            : "agents." + profile.profileName() + ": " + unkeepable.message());
      }
    }
  }

  /**
   * The agent programs start (every profile's, the default's), and every gate and set-up step does,
   * from {@code dir} with {@code path} as PATH. Returns how the default agent's program was found;
   * empty when no agent is configured.
   */
  public static Optional<Preflight.Found> agents(Config config, String path, Path dir) {
    for (AgentConfig profile : config.agents().values()) {
      if (profile.command().isEmpty()) {
        throw new Refused("agents." + profile.profileName() + " has no command: give its preset (claude, codex, "
            + "gemini, opencode) or its command");
      }
      if (Preflight.check(profile, path, dir) instanceof Preflight.Problem problem) {
        throw new Refused("agents." + profile.profileName() + ": " + problem.message());
      }
    }
    for (AgentConfig profile : config.profiles().values()) {
      Preflight.Problem box = Preflight.sandbox(profile, path);
      if (box != null) {
        throw new Refused(profile == config.agent() ? box.message()
            : "agents." + profile.profileName() + ": " + box.message());
      }
    }
    projectCommands(config).forEach((command, what) -> {
      Preflight.Problem problem = Preflight.command(command, what, path, dir);
      if (problem != null) {
        throw new Refused(problem.message());
      }
    });
    if (config.agent().command().isEmpty()) {
      return Optional.empty();
    }
    Preflight.Check check = Preflight.check(config.agent(), path, dir);
    if (check instanceof Preflight.Problem problem) {
      throw new Refused(problem.message());
    }
    return Optional.of((Preflight.Found) check);
  }

  /**
   * With {@code execution.workspace: worktree}, the repository and base branch items work from, the
   * copied files, {@code merge: push}'s remote and {@code landing: remote}'s, and the gates' scripts
   * tracked; null for the shared workspace.
   */
  public static Repository repository(Config config, Path dir) {
    WorkspaceConfig workspace = config.execution().workspace();
    if (!workspace.worktrees()) {
      return null;
    }
    try {
      Git git = new Git();
      Repository repo = Repository.discover(git, dir, workspace.baseBranch());
      CopiedFiles.check(git, repo, workspace.copy());
      Landing.checkRemote(git, repo, workspace);
      if (workspace.landsOnRemote()) {
        SharedRemote.url(git, repo, workspace.remote(),
            "execution.landing: remote pushes every phase commit there and lands work on its base branch");
      }
      commandsTracked(config, git, dir);
      return repo;
    } catch (GitException e) { // git failing while the run checks the project: the project is not usable
      throw new Refused(e.getMessage());
    }
  }

  /**
   * Every {@code workspace.setup} step and {@code verify:} gate of the config, once each, with how a
   * message names it (a gate by the first phase that runs it).
   */
  private static Map<ProjectCommand, String> projectCommands(Config config) {
    Map<ProjectCommand, String> all = new LinkedHashMap<>();
    config.execution().workspace().setup().forEach(step -> all.put(step, "workspace.setup '" + step.name() + "'"));
    for (Pipeline pipeline : config.pipelines().values()) {
      for (PhaseDef phase : pipeline.allPhases()) {
        pipeline.verifyFor(phase).forEach(gate -> all.putIfAbsent(gate, "verify gate '" + gate.name()
            + "' of phase '" + phase.name() + "' (pipeline '" + pipeline.name() + "')"));
      }
    }
    return all;
  }

  /**
   * In worktree mode, the project files a gate or set-up step runs (a relative program, an
   * interpreter's script) must be tracked: they run in each item's worktree, which holds only what
   * git tracks, so an uncommitted one would fail every item (docs/verification.md).
   */
  private static void commandsTracked(Config config, Git git, Path dir) {
    projectCommands(config).forEach((command, what) -> {
      for (String file : Preflight.projectFiles(command)) {
        if (!git.run(dir, "ls-files", "--error-unmatch", "--", file).ok()) {
          throw new Refused(what + ": " + file + " is not tracked by git, and it runs in each item's "
              + "worktree, which holds only tracked files: commit it (git add " + file + " && git commit), or "
              + "give its absolute path");
        }
      }
    });
  }
}
