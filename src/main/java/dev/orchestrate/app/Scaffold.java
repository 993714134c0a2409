package dev.orchestrate.app;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.error.OrchestrateException;
import dev.orchestrate.state.StateDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What {@code orchestrate init} writes into a project: the commented config (with an agent preset
 * or a state URL set in it), the small backlog, the example agent, and the git-ignored state
 * directory. Everything that could stop it half-way (a file it would overwrite, a file where a
 * directory belongs) is refused before the first file is written.
 */
public final class Scaffold {
  /** Template resource → file written, relative to the project directory. */
  private static final List<String> FILES = List.of("orchestrate.yaml", "backlog.yaml", "agents/example-agent.sh");

  /**
   * The flags init suggests with each preset: what the agent needs to write the result file and
   * edit the project without asking (checked against each CLI's --help).
   */
  static final Map<AgentPreset, String> SUGGESTED_ARGS = Map.of(
      AgentPreset.CLAUDE, "[\"--allowedTools\", \"Bash\", \"Edit\", \"Write\", \"Read\"]",
      AgentPreset.CODEX, "[\"--sandbox\", \"workspace-write\"]",
      AgentPreset.GEMINI, "[\"--approval-mode\", \"auto_edit\"]",
      AgentPreset.OPENCODE, "[]");

  /** Init would overwrite a file or cannot create a directory; nothing was written. Exit 2. */
  public static final class Refused extends OrchestrateException {
    Refused(String message) {
      super(Kind.USAGE, message);
    }
  }

  private final Path base;
  private final Path shown;
  private final Path state;
  private final AgentPreset preset;
  private final String stateUrl;

  /**
   * @param base the project directory, resolved
   * @param shown the same directory as the user named it, for messages
   * @param state the state directory, resolved
   * @param preset the agent preset to configure; null: the example agent
   * @param stateUrl the database the config names as its state; null: the state directory
   */
  public Scaffold(Path base, Path shown, Path state, AgentPreset preset, String stateUrl) {
    this.base = base;
    this.shown = shown;
    this.state = state;
    this.preset = preset;
    this.stateUrl = stateUrl;
  }

  /** The files init writes: a preset's config runs that CLI, so the example agent would only be clutter. */
  public List<String> files() {
    return preset == null ? FILES : FILES.stream().filter(f -> !f.startsWith("agents/")).toList();
  }

  /**
   * Refuses, before anything is written, a file init would overwrite and a file where one of the
   * directories it creates or writes into belongs.
   *
   * @throws Refused naming every such file
   */
  public void check() {
    List<String> existing = new ArrayList<>();
    for (String f : files()) {
      if (Files.exists(base.resolve(f))) {
        existing.add(shown.resolve(f).toString());
      }
    }
    if (!existing.isEmpty()) {
      throw new Refused("init would overwrite " + String.join(", ", existing)
          + "; nothing was written (move them away or init another directory)");
    }
    List<Path> directories = new ArrayList<>();
    for (String f : files()) {
      directories.add(base.resolve(f).toAbsolutePath().getParent());
    }
    directories.add(state.toAbsolutePath());
    for (Path directory : directories) {
      Path found = directory;
      while (found != null && !Files.exists(found)) {
        found = found.getParent();
      }
      if (found != null && !Files.isDirectory(found)) {
        throw new Refused(found + " is not a directory; nothing was written (move it away or init "
            + "another directory)");
      }
    }
  }

  /**
   * Writes the files and creates the state directory, telling {@code written} each file (as the
   * user named it) once it is there. Returns whether the state directory got a {@code .gitignore}.
   */
  public boolean write(Consumer<Path> written) {
    try {
      for (String f : files()) {
        Path target = base.resolve(f);
        Files.createDirectories(target.toAbsolutePath().getParent());
        Files.writeString(target, content(f));
        if (f.endsWith(".sh")) {
          makeExecutable(target);
        }
        written.accept(shown.resolve(f));
      }
      return new StateDirectory(state).create();
    } catch (IOException e) {
      throw new UncheckedIOException("init: " + e.getMessage(), e);
    }
  }

  private String content(String file) throws IOException {
    String text;
    try (InputStream in = Scaffold.class.getResourceAsStream("/init/" + file)) {
      if (in == null) {
        throw new IllegalStateException("template " + file + " is missing from the build");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (file.equals("orchestrate.yaml") && preset != null) {
      text = withPreset(text, preset);
    }
    if (file.equals("orchestrate.yaml") && stateUrl != null) {
      text = withStateUrl(text, stateUrl);
    }
    return text;
  }

  /** The template with its commented-out {@code state.url} line set to {@code url}. */
  static String withStateUrl(String template, String url) {
    String section = "# state:\n";
    String line = "#   url: ";
    int start = template.indexOf(section);
    int at = template.indexOf(line, start);
    int end = at < 0 ? -1 : template.indexOf('\n', at);
    if (start < 0 || end < 0) {
      throw new IllegalStateException("the config template has no commented-out state.url to set");
    }
    return template.substring(0, start) + "state:\n" + template.substring(start + section.length(), at)
        + "  url: " + yamlString(url) + template.substring(end);
  }

  /** {@code text} as a double-quoted YAML string. */
  public static String yamlString(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** The template with agent.command replaced by the preset and its suggested args. */
  static String withPreset(String template, AgentPreset preset) {
    String command = "  command: [\"bash\", \"agents/example-agent.sh\"]\n";
    if (!template.contains(command)) {
      throw new IllegalStateException("the config template has no agent.command line to replace");
    }
    return template.replace(command, "  preset: " + preset.key() + "                # runs: "
        + String.join(" ", preset.argv(List.of(), List.of())).strip() + "\n"
        + "  args: " + SUGGESTED_ARGS.get(preset) + "   # your flags, after the preset's\n"
        + "  # command: [\"/path/to/" + preset.program() + "\"]   # only to override the program path\n");
  }

  private static void makeExecutable(Path file) throws IOException {
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the agent is started as "bash <script>" anyway
    }
  }
}
