package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ProjectCommand;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Checks, before a run takes the lock, that the agent program can be started: a bare name must
 * resolve on PATH, a path (relative to the backlog's directory in the user's checkout) must be an
 * executable file. A mistyped command would otherwise be found only after every item had been
 * blocked three times over. {@link #anchored} then makes those paths absolute, so that an agent in
 * an item's worktree (which holds only tracked files) runs the very program and script checked
 * here, not a missing copy in the worktree (docs/workspaces.md, "Where agents run and what they
 * see").
 */
public final class Preflight {

  /** What the check found: the program's resolved path, or the one-line problem with its fix. */
  public sealed interface Check permits Found, Problem {
  }

  /**
   * @param program  the program as configured
   * @param resolved where it is
   * @param script   the script an interpreter is given ({@code ["bash", "agents/x.sh"]}), absolute; null
   *                 when the agent is not an interpreter with a script
   */
  public record Found(String program, Path resolved, Path script) implements Check {
    public Found(String program, Path resolved) {
      this(program, resolved, null);
    }
  }

  public record Problem(String message) implements Check {
  }

  private Preflight() {
  }

  /**
   * @param path    the PATH to search (the runner's own: that is where the JDK looks programs up)
   * @param workDir the agents' working directory, against which a relative path resolves
   */
  public static Check check(AgentConfig agent, String path, Path workDir) {
    Objects.requireNonNull(agent, "agent");
    Check check = program(agent, path, workDir);
    if (check instanceof Found found && agent.command().size() > 1) {
      Check script = script(agent.command(), workDir);
      if (script != null) {
        return script;
      }
      Path file = scriptArgument(agent.command());
      if (file != null) {
        return new Found(found.program(), found.resolved(), workDir.resolve(file).normalize());
      }
    }
    return check;
  }

  /**
   * The agent's command with its relative paths made absolute against {@code projectDir} (the
   * backlog's directory in the user's checkout): the program when it is a path
   * ({@code ./agents/run.sh}), and the script an interpreter is given ({@code ["bash",
   * "agents/run.sh"]}). Agents run in the item's worktree, where a script the user has not
   * committed does not exist; the program checked by {@link #check} is the one that runs. A bare
   * program name (looked up on PATH) and every other argument are left as they are.
   */
  public static AgentConfig anchored(AgentConfig agent, Path projectDir) {
    List<String> argv = agent.command();
    if (argv.isEmpty()) {
      return agent;
    }
    List<String> anchored = new ArrayList<>(argv);
    String program = argv.get(0);
    if (program.contains("/") && !Path.of(program).isAbsolute()) {
      anchored.set(0, projectDir.resolve(program).normalize().toString());
    }
    Path script = scriptArgument(argv);
    if (script != null && !script.isAbsolute()) {
      anchored.set(1, projectDir.resolve(script).normalize().toString());
    }
    return anchored.equals(argv) ? agent : agent.withCommand(anchored);
  }

  /** The script an interpreter is given as its first argument, or null. */
  private static Path scriptArgument(List<String> argv) {
    if (argv.size() < 2 || !INTERPRETERS.contains(Path.of(argv.get(0)).getFileName().toString())
        || argv.get(1).startsWith("-") || argv.get(1).isEmpty()) {
      return null;
    }
    return Path.of(argv.get(1));
  }

  /**
   * {@code agent.sandbox: bwrap} can be kept: bwrap is on {@code path} and starts a sandbox of the
   * kind the jobs get (a PID namespace, /proc, a read-only root); and Codex is not asked to run its
   * own bubblewrap sandbox inside it (it cannot, docs/security.md). Null when it can, or when the
   * profile has no sandbox.
   */
  public static Problem sandbox(AgentConfig agent, String path) {
    if (!agent.sandbox().on()) {
      return null;
    }
    if (agent.preset() == AgentPreset.CODEX) {
      for (int i = 0; i < agent.args().size(); i++) {
        String arg = agent.args().get(i);
        String mode = arg.startsWith("--sandbox=") ? arg.substring("--sandbox=".length())
            : (arg.equals("--sandbox") || arg.equals("-s")) && i + 1 < agent.args().size() ? agent.args().get(i + 1)
                : null;
        if (mode != null && !mode.equals("danger-full-access")) {
          return new Problem("agent.sandbox: bwrap runs Codex inside orchestrate's sandbox, where Codex's own "
              + "(--sandbox " + mode + ", bubblewrap too) cannot start and its commands would fail unnoticed: "
              + "pass --sandbox danger-full-access in agent.args (orchestrate's sandbox confines it), or set "
              + "agent.sandbox: none to keep Codex's");
        }
      }
    }
    Optional<Path> bwrap = Bubblewrap.find(path);
    if (bwrap.isEmpty()) {
      return new Problem("agent.sandbox: bwrap needs bubblewrap, and no bwrap is on PATH: install it (Debian, "
          + "Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap), or set agent.sandbox: none");
    }
    String why = Bubblewrap.probe(bwrap.get());
    return why == null ? null : new Problem("agent.sandbox: bwrap cannot start a sandbox here (" + why + "): it "
        + "needs user namespaces (sysctl kernel.unprivileged_userns_clone=1, or in a container: allow them, e.g. "
        + "docker run --security-opt seccomp=unconfined), or set agent.sandbox: none");
  }

  /**
   * A cost budget (set by {@code costKey}, e.g. {@code --max-cost}) can be kept only with an agent
   * that reports its cost; otherwise the problem, with the fix. Null when there is no cost budget
   * or the agent reports its cost.
   */
  public static Problem costBudget(AgentConfig agent, String costKey) {
    if (costKey == null || agent.command().isEmpty() || agent.preset().reportsCost()) {
      return null;
    }
    if (agent.preset() == AgentPreset.ACP) {
      return new Problem(costKey + " is a cost budget, but an ACP agent (agent.preset: acp) need not report its "
          + "cost, so it could not be kept: use agent.preset claude or opencode, which report their cost, or remove "
          + costKey);
    }
    if (agent.preset() == AgentPreset.COMMAND) {
      return new Problem(costKey + " is a cost budget, but a plain agent.command reports no cost, so it could "
          + "not be kept: use agent.preset claude or opencode, which report their cost, or remove " + costKey);
    }
    String tokens = costKey.startsWith("budget.") ? "budget.tokens_per_day or budget.tokens_per_week"
        : "--max-tokens or execution.max_tokens";
    return new Problem(costKey + " is a cost budget, but agent.preset " + agent.preset().key() + " reports tokens, "
        + "not cost, so it could not be kept: use a token budget instead (" + tokens + ")");
  }

  /**
   * A token budget (set by {@code tokenKey}, e.g. {@code --max-tokens}) can be kept only with an
   * agent that reports its tokens: every preset does, a plain command does not (issue 44: it was
   * accepted and silently not enforced). Null when there is no token budget or it can be kept.
   */
  public static Problem tokenBudget(AgentConfig agent, String tokenKey) {
    if (tokenKey == null || agent.command().isEmpty() || agent.preset().reportsTokens()) {
      return null;
    }
    if (agent.preset() == AgentPreset.ACP) {
      return new Problem(tokenKey + " is a token budget, but an ACP agent (agent.preset: acp) need not report its "
          + "tokens, so it could not be kept: use agent.preset claude, codex, gemini or opencode, or remove "
          + tokenKey);
    }
    return new Problem(tokenKey + " is a token budget, but a plain agent.command reports no tokens, so it could not "
        + "be kept: use an agent.preset (claude, codex, gemini, opencode), which report their tokens, or remove "
        + tokenKey);
  }

  /** Shell words that are not programs on PATH: a command that starts with one is not checked further. */
  private static final java.util.Set<String> SHELL_WORDS = java.util.Set.of("cd", "export", "set", "unset", "true",
      "false", "test", "[", "echo", "printf", "exit", "if", "for", "while", "until", "case", "{", "(", ":", ".",
      "source", "exec", "command", "eval", "env", "!", "time", "umask", "ulimit", "read", "trap", "wait", "shift");

  /**
   * A project command ({@code verify:} gate, {@code workspace.setup} step) must be able to start: its
   * program (the argv's first word, or the first word of a shell command when it is a plain program
   * name or path) is on PATH or, as a path, exists relative to {@code workDir} and is executable;
   * a script run by an interpreter exists. Checked once before the run, so a typo fails the run with
   * its fix instead of failing every item. Null when it can start.
   *
   * @param what how the message names the command, e.g. {@code verify gate 'tests' of phase 'build'}
   */
  public static Problem command(ProjectCommand command, String what, String path,
      Path workDir) {
    if (command.viaShell() && !Files.isExecutable(Path.of(ProjectCommand.SHELL))) {
      return new Problem(what + " runs through " + ProjectCommand.SHELL
          + ", which is not on this machine: write run: as a list (the program and its arguments)");
    }
    java.util.List<String> argv = programArgv(command);
    if (argv.isEmpty()) {
      return null; // a builtin, an assignment, or shell syntax: the shell decides
    }
    String program = argv.get(0);
    if (program.contains("/")) {
      Path file = workDir.resolve(program).normalize();
      if (!Files.exists(file)) {
        return new Problem(what + ": program " + program + " does not exist (looked for " + file
            + "; it is relative to the backlog's directory): fix run");
      }
      if (Files.isDirectory(file) || !Files.isExecutable(file)) {
        return new Problem(what + ": program " + program + " is not executable: run 'chmod +x " + program
            + "' (and commit it), or start it through its interpreter, e.g. run: \"sh " + program + "\"");
      }
    } else if (!onPath(program, path)) {
      return new Problem(what + ": program '" + program + "' is not on PATH: install it, or fix run");
    }
    if (argv.size() > 1 && INTERPRETERS.contains(Path.of(program).getFileName().toString())
        && !argv.get(1).startsWith("-") && !Files.isRegularFile(workDir.resolve(argv.get(1)).normalize())) {
      return new Problem(what + ": script " + argv.get(1) + " (run by " + program + ") does not exist (looked for "
          + workDir.resolve(argv.get(1)).normalize() + "): fix run; it is relative to the backlog's directory");
    }
    return null;
  }

  /**
   * The files of the project a command runs, as written (relative to where it runs): its program
   * when that is a relative path, and the script an interpreter is given. In worktree mode these
   * must be files git tracks, since a worktree holds only those.
   */
  public static java.util.List<String> projectFiles(ProjectCommand command) {
    java.util.List<String> argv = programArgv(command);
    if (argv.isEmpty()) {
      return java.util.List.of();
    }
    java.util.List<String> files = new java.util.ArrayList<>();
    String program = argv.get(0);
    if (program.contains("/") && !Path.of(program).isAbsolute()) {
      files.add(program);
    }
    if (argv.size() > 1 && INTERPRETERS.contains(Path.of(program).getFileName().toString())
        && !argv.get(1).startsWith("-") && !Path.of(argv.get(1)).isAbsolute()
        && argv.get(1).matches("[A-Za-z0-9_./+-]+")) {
      files.add(argv.get(1));
    }
    return files;
  }

  /**
   * The program and arguments a command runs, as far as they can be known without a shell: the
   * argv, or a shell command's words when its first one is a plain program name or path; empty
   * when it starts with a builtin, an assignment or shell syntax.
   */
  private static java.util.List<String> programArgv(ProjectCommand command) {
    if (!command.viaShell()) {
      return command.argv();
    }
    String[] words = command.text().strip().split("\\s+");
    if (SHELL_WORDS.contains(words[0]) || words[0].contains("=") || !words[0].matches("[A-Za-z0-9_./+-]+")) {
      return java.util.List.of();
    }
    return java.util.Arrays.asList(words);
  }

  private static boolean onPath(String program, String path) {
    for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir).resolve(program);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Interpreters whose first argument is the script they run: ["bash", "agents/claude.sh"]. */
  private static final java.util.Set<String> INTERPRETERS = java.util.Set.of("bash", "sh", "zsh", "dash", "python",
      "python3", "node", "ruby", "perl");

  /** The script an interpreter is told to run must exist; null when there is none or it does. */
  private static Check script(java.util.List<String> command, Path workDir) {
    String interpreter = Path.of(command.get(0)).getFileName().toString();
    String script = command.get(1);
    if (!INTERPRETERS.contains(interpreter) || script.startsWith("-")) {
      return null;
    }
    Path file = workDir.resolve(script).normalize();
    if (Files.isRegularFile(file)) {
      return null;
    }
    return new Problem("agent script " + script + " (run by " + command.get(0) + ") does not exist (looked for "
        + file + "): fix the path in agent.command; it is relative to the backlog's directory");
  }

  private static Check program(AgentConfig agent, String path, Path workDir) {
    String program = agent.command().get(0);
    AgentPreset preset = agent.preset();
    if (program.contains("/")) {
      Path file = workDir.resolve(program).normalize();
      if (!Files.exists(file)) {
        return new Problem("agent program " + program + " does not exist (looked for " + file + ")"
            + fix(preset, program));
      }
      if (Files.isDirectory(file)) {
        return new Problem("agent program " + program + " is a directory, not a program: set agent.command to the "
            + "program inside it");
      }
      if (!Files.isExecutable(file)) {
        return new Problem("agent program " + program + " is not executable: run 'chmod +x " + program
            + "', or start it through its interpreter, e.g. agent.command: [\"bash\", \"" + program + "\"]");
      }
      return new Found(program, file);
    }
    for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir).resolve(program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return new Found(program, candidate);
      }
    }
    return new Problem("agent program '" + program + "'"
        + (preset == AgentPreset.COMMAND ? "" : " (agent.preset: " + preset.key() + ")") + " is not on PATH"
        + fix(preset, program));
  }

  private static String fix(AgentPreset preset, String program) {
    if (preset.installHint() != null && program.endsWith(preset.program())) {
      return ": install it with '" + preset.installHint() + "', or set agent.command to where it is installed";
    }
    if (preset.installHint() != null) {
      return ": install " + preset.program() + " with '" + preset.installHint() + "', or fix agent.command";
    }
    return ": install it, or set agent.command to its path (a script: [\"bash\", \"script.sh\"])";
  }
}
