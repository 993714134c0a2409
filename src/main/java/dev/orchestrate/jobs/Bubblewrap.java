package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.SandboxConfig;
import dev.orchestrate.limits.ProcessTrees;
import dev.orchestrate.limits.Quote;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code agent.sandbox: bwrap} (docs/security.md, "The sandbox"): the argv that runs a job's
 * process (the agent, a gate, a set-up step) inside bubblewrap. The process sees the whole file
 * system read-only, and writes only to
 * <ul>
 *   <li>its workspace (the item's worktree, or the shared checkout without its {@code .git});</li>
 *   <li>its job directory (the result file, and {@code TMPDIR}: the job's {@code tmp/});</li>
 *   <li>its preset's own directories ({@code ~/.claude}, {@code ~/.codex}, ...: sessions, config);</li>
 *   <li>the paths {@code agent.sandbox_writable} lists.</li>
 * </ul>
 * The state directory is hidden (an empty file system over it) but for the job's own directory
 * and the worktree, and so are the usual credential stores under the home directory
 * ({@link SandboxConfig#ALWAYS_HIDDEN}: {@code ~/.ssh}, {@code ~/.aws}, ...) and
 * {@code agent.sandbox_hidden}. It has a PID namespace of its own, so no other process, the runner among
 * them, is visible under {@code /proc}; it dies with its parent. The network stays (the agent
 * talks to its model) but for gates and set-up steps with {@code sandbox_gate_network: false}.
 *
 * <p>Mounts are given parents first (a later mount covers an earlier one), so a worktree inside
 * the hidden state directory and a checkout around it both come out right.
 */
public final class Bubblewrap {
  /** The argument that ends bwrap's options. */
  private static final String END = "--";

  private final Path program;
  private final SandboxConfig config;

  /** @param program bwrap's absolute, real path, as preflight found it */
  public Bubblewrap(Path program, SandboxConfig config) {
    this.program = program;
    this.config = config;
  }

  /**
   * bwrap on the absolute entries of {@code path} (never a relative one, which names a directory
   * an agent may have filled), by its real path; empty without one.
   */
  public static Optional<Path> find(String path) {
    return ProcessTrees.onAbsolutePath("bwrap", path);
  }

  /** The directories a preset's CLI keeps its sessions and settings in, under {@code home}. */
  static List<Path> presetPaths(AgentPreset preset, Path home, Map<String, String> env) {
    return switch (preset) {
      case CLAUDE -> List.of(home.resolve(".claude"), home.resolve(".claude.json"));
      case CODEX -> List.of(env.get("CODEX_HOME") != null && !env.get("CODEX_HOME").isBlank()
          ? Path.of(env.get("CODEX_HOME")) : home.resolve(".codex"));
      case GEMINI -> List.of(home.resolve(".gemini"));
      case OPENCODE -> List.of(home.resolve(".local/share/opencode"), home.resolve(".config/opencode"),
          home.resolve(".cache/opencode"), home.resolve(".local/state/opencode"));
      case ACP, COMMAND -> List.of(); // an ACP agent's, if any: agent.sandbox_writable
    };
  }

  /**
   * The argv that runs {@code command} in the sandbox: bwrap's options, then {@code command}.
   *
   * @param workDir  the workspace, writable
   * @param jobDir   the job's directory, writable; the state directory is the one above its
   *                 {@code jobs/} directory, and hidden
   * @param preset   whose own directories stay writable (when they exist)
   * @param env      the process's environment: {@code HOME}, {@code CODEX_HOME}
   * @param gate     a gate or set-up step (the network may be cut), not the agent
   */
  public List<String> argv(List<String> command, Path workDir, Path jobDir, AgentPreset preset,
      Map<String, String> env, boolean gate) {
    Path job = real(jobDir);
    Path jobs = job.getParent();
    Path state = jobs != null && jobs.getFileName() != null && jobs.getFileName().toString().equals("jobs")
        ? jobs.getParent() : null;
    return argv(command, workDir, state, job, preset, env, gate);
  }

  /**
   * As above for a command that has no job: an integration gate in a landing tree. {@code state}
   * (null: none) is hidden, {@code workDir} and {@code scratch} are writable.
   */
  public List<String> argv(List<String> command, Path workDir, Path state, Path scratch, AgentPreset preset,
      Map<String, String> env, boolean gate) {
    List<Mount> mounts = new ArrayList<>();
    Path work = real(workDir);
    mounts.add(new Mount("--bind", work));
    Path git = work.resolve(".git");
    if (Files.isDirectory(git)) { // the shared checkout's own repository: read, never written
      mounts.add(new Mount("--ro-bind", git));
    }
    if (state != null) {
      mounts.add(new Mount("--tmpfs", real(state)));
    }
    mounts.add(new Mount("--bind", real(scratch)));
    String home = env.get("HOME");
    if (home != null && Path.of(home).isAbsolute()) {
      for (Path p : presetPaths(preset, Path.of(home), env)) {
        mounts.add(new Mount("--bind-try", p.toAbsolutePath().normalize()));
      }
    }
    for (String path : config.writable()) {
      if (path.startsWith("~/") && (home == null || !Path.of(home).isAbsolute())) {
        continue;
      }
      Path p = path.startsWith("~/") ? Path.of(home, path.substring(2)) : Path.of(path);
      mounts.add(new Mount("--bind-try", p.normalize()));
    }
    // Credential stores: not even readable (listed after the writable paths: a hidden path wins).
    // One the user lists in sandbox_writable is passed on explicitly (a gate's ~/.npmrc, say).
    List<String> hidden = new ArrayList<>(SandboxConfig.ALWAYS_HIDDEN);
    hidden.removeAll(config.writable());
    hidden.addAll(config.hidden());
    for (String path : hidden) {
      if (path.startsWith("~/") && (home == null || !Path.of(home).isAbsolute())) {
        continue;
      }
      Path p = (path.startsWith("~/") ? Path.of(home, path.substring(2)) : Path.of(path)).normalize();
      if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        mounts.add(new Mount("--tmpfs", p));
      } else if (Files.exists(p)) {
        mounts.add(new Mount("--ro-bind", Path.of("/dev/null"), p));
      }
    }
    // Parents before children; in order of listing among equals (a stable sort).
    mounts.sort(Comparator.comparingInt(m -> m.path().getNameCount()));
    List<String> argv = new ArrayList<>(List.of(program.toString(), "--die-with-parent", "--unshare-pid",
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"));
    if (gate && !config.gateNetwork()) {
      argv.add("--unshare-net");
    }
    for (Mount m : mounts) {
      argv.add(m.option());
      if (!m.option().equals("--tmpfs")) {
        argv.add(m.source().toString());
      }
      argv.add(m.path().toString());
    }
    argv.add(END);
    argv.addAll(command);
    return argv;
  }

  /**
   * Starts {@code true} in a sandbox of the kind jobs get (read-only root, /dev, /proc, a PID
   * namespace); null when it ran, else bwrap's reason in one line.
   */
  static String probe(Path bwrap) {
    ProcessBuilder builder = new ProcessBuilder(bwrap.toString(), "--die-with-parent", "--unshare-pid", "--ro-bind",
        "/", "/", "--dev", "/dev", "--proc", "/proc", END, "true").redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    try {
      Process process = builder.start();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return "it did not finish within 20 s";
      }
      String out = new String(process.getInputStream().readNBytes(2000), StandardCharsets.UTF_8)
          .strip();
      return process.exitValue() == 0 ? null
          : "exit " + process.exitValue() + (out.isEmpty() ? "" : ": " + Quote.line(out, 200));
    } catch (IOException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** The job's scratch directory, made now: the sandbox's {@code TMPDIR}. */
  static Path scratch(Path jobDir) throws IOException {
    return Files.createDirectories(jobDir.resolve("tmp"));
  }

  /**
   * The preset's own directories made now when missing (the CLI would make them itself, but in the
   * sandbox only a directory that exists can be made writable); files are left alone.
   */
  static void preparePresetPaths(AgentPreset preset, Map<String, String> env) {
    String home = env.get("HOME");
    if (home == null || !Path.of(home).isAbsolute()) {
      return;
    }
    for (Path p : presetPaths(preset, Path.of(home), env)) {
      if (!p.getFileName().toString().endsWith(".json")) {
        try {
          Files.createDirectories(p);
        } catch (IOException e) {
          // the CLI will say what it misses
        }
      }
    }
  }

  private static Path real(Path path) {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      return path.toAbsolutePath().normalize();
    }
  }

  /** One mount: {@code source} (the same path but for a file hidden by /dev/null) at {@code path}. */
  private record Mount(String option, Path source, Path path) {
    Mount(String option, Path path) {
      this(option, path, path);
    }
  }
}
