package dev.orchestrate.cli;

import dev.orchestrate.app.Scaffold;
import dev.orchestrate.app.StatePreparation;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.select.StateBackends;
import dev.orchestrate.yaml.ValidationException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code orchestrate init}: scaffold a commented config, a small backlog and an example agent. */
@Command(name = "init", mixinStandardHelpOptions = true,
    description = {"Scaffold a project: config, backlog and an example agent.",
        "Writes orchestrate.yaml (every key, commented), backlog.yaml, agents/example-agent.sh (not with "
            + "--agent, whose config runs that CLI) and the .orchestrate/ state directory, git-ignored, into DIR. "
            + "Refuses to overwrite any existing file.",
        "With --state postgresql://user@host:5432/db, first connects to the database and creates or migrates "
            + "the state's schema (nothing is written when that fails), then writes the URL into orchestrate.yaml "
            + "as state.url; .orchestrate/ then holds only this machine's job logs and worktrees. In a directory "
            + "that already has an orchestrate.yaml it only prepares the database, and says how to point the "
            + "project at it."})
final class InitCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", defaultValue = ".",
      description = "Directory to scaffold (default: the current directory)")
  Path dir;

  @Option(names = "--agent", paramLabel = "PRESET",
      description = "Configure a coding-agent CLI instead of the example script: claude, codex, gemini or opencode "
          + "(agent.preset; see docs/agents.md)")
  String agent;

  @Override
  public Integer call() {
    AgentPreset preset = preset();
    Path base = root.command().workingDirectory().resolve(dir);
    String url = root.command().state != null && StateBackends.isDatabase(root.command().state) ? root.command().state
        : null;
    if (url != null && Files.isRegularFile(base.resolve("orchestrate.yaml"))) {
      return prepareOnly(url, base);
    }
    if (root.command().state != null && root.command().state.isBlank()) {
      throw CliException.usage("--state is empty; give the state directory or URL, or leave the flag out for "
          + OrchestrateCommand.DEFAULT_STATE_DIR);
    }
    Path state = root.command().state != null && url == null ? Path.of(root.command().state)
        : dir.resolve(OrchestrateCommand.DEFAULT_STATE_DIR);
    Scaffold scaffold = new Scaffold(base, dir, root.command().workingDirectory().resolve(state), preset, url);
    scaffold.check();
    PrintWriter out = spec.commandLine().getOut();
    if (url != null) {
      // Before any file: a database out of reach leaves nothing to clean up.
      out.println(prepare(url, base));
    }
    boolean ignored = scaffold.write(file -> out.println("wrote " + file));
    out.println("created " + state + "/" + (url == null ? "" : " (this machine's job logs and worktrees)")
        + (ignored ? " with a .gitignore of *: the state is never committed" : ""));
    out.println();
    // Run from here, that backlog finds its project (the state and config written above).
    String run = "  orchestrate run" + (dir.equals(Path.of(".")) ? "" : " " + dir.resolve("backlog.yaml"));
    if (preset == null) {
      out.println("Next: try it as it is (the example agent only pretends to work):");
      out.println(run);
      out.println("then set agent.command in orchestrate.yaml to your agent (or agent.preset: claude, codex, gemini, "
          + "opencode) and write your items into backlog.yaml.");
    } else {
      out.println("Next: edit backlog.yaml (and agent.args in orchestrate.yaml: model, allowed tools), then run");
      out.println(run);
    }
    out.flush();
    return ExitCode.OK;
  }

  /**
   * Connects to the database {@code url} names and creates or migrates the state's schema; the line
   * to print. The local directory is the one init creates (the backend does not write to it here).
   *
   * @throws CliException (exit 2) for a location that cannot be used, a password in it first of all
   * @throws StoreException when the database cannot be reached or refuses
   */
  private static String prepare(String url, Path base) {
    StateBackend backend = StateBackends.at(url,
        new StateDirectory(base.resolve(OrchestrateCommand.DEFAULT_STATE_DIR)));
    backend.problem().ifPresent(problem -> {
      throw CliException.usage(problem);
    });
    int version = StatePreparation.prepare(backend);
    return "state: " + backend + " ready, schema version " + version;
  }

  /**
   * {@code init --state URL} in an existing project: the database is prepared, the project's files
   * are left as they are (a config is the user's own: rewriting it would lose its layout and
   * comments), and what to add is printed instead, unless the config names that URL already.
   */
  private Integer prepareOnly(String url, Path base) {
    PrintWriter out = spec.commandLine().getOut();
    out.println(prepare(url, base));
    Path config = dir.resolve("orchestrate.yaml").normalize();
    String named;
    try {
      named = ConfigLoader.loadState(base.resolve("orchestrate.yaml")).url();
    } catch (ValidationException e) {
      named = null;
    }
    if (url.equals(named)) {
      out.println(config + " names it already (state.url); nothing else to do");
    } else {
      out.println(config + " exists and was left as it is; to use this state from the project, set in it");
      out.println("  state:");
      out.println("    url: " + Scaffold.yamlString(url));
      out.println("or pass --state (or set ORCHESTRATE_STATE) on every command");
    }
    out.flush();
    return ExitCode.OK;
  }

  private AgentPreset preset() {
    if (agent == null) {
      return null;
    }
    for (AgentPreset p : AgentPreset.values()) {
      if (!p.needsCommand() && p.key().equals(agent)) {
        return p;
      }
    }
    throw CliException.usage("--agent must be one of claude, codex, gemini, opencode, got '" + agent
        + "' (for any other program, run init without --agent and set agent.command)");
  }
}
