package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The project both resume tests with a real CLI share (RealClaudeCodeResumeIT, RealCodexResumeIT):
 * a git repository whose {@code state.txt} says {@code start}, worktrees, {@code agent.resume}, and
 * one phase whose gate passes only when the file says {@code fixed}; the runs of
 * {@code orchestrate run} in it, and its jobs as the state database recorded them.
 */
final class ResumeProject {
  /** How the short prompt of a continued session begins. */
  static final String RESUMED = "This continues your last attempt";
  /** What the gate prints while state.txt is not fixed. */
  static final String GATE_SAYS = "state.txt is not fixed";

  final Path dir;
  private final Path work;
  private String lastErr = "";

  /**
   * @param work      the test's temporary directory (the project is its {@code project/})
   * @param agentYaml the config's agent keys but {@code resume}, indented by two spaces
   */
  ResumeProject(Path work, String agentYaml) throws Exception {
    this.work = work;
    dir = Files.createDirectories(work.resolve("project"));
    git(dir, "init", "-q", "-b", "main");
    Files.writeString(dir.resolve("state.txt"), "start\n");
    Files.writeString(dir.resolve(".gitignore"), ".orchestrate/\n");
    git(dir, "add", "-A");
    git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start");
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
        %s
          resume: true
        execution:
          workspace: worktree
          max_retries: 2
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: build
                instructions: "Make state.txt say fixed."
                verify:
                  - name: check
                    run: "grep -qx fixed state.txt || { echo '%s'; exit 1; }"
        """.formatted(agentYaml.stripTrailing(), GATE_SAYS));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: fix the state}\n");
  }

  /** {@code orchestrate run --json --no-live FLAGS backlog.yaml} with {@code env} on top; its exit code. */
  int run(Map<String, String> env, String... flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("run", "--json", "--no-live"));
    args.addAll(List.of(flags));
    args.add("backlog.yaml");
    ProcessBuilder pb = Launcher.builder(dir, args.toArray(String[]::new));
    pb.environment().putAll(env);
    pb.environment().put("PATH", AgentClis.nodeDir() + ":" + pb.environment().getOrDefault("PATH", "/usr/bin:/bin"));
    Path err = work.resolve("run.err");
    Process p = pb.redirectOutput(work.resolve("run.out").toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the run finishes");
    lastErr = Files.readString(err);
    return p.exitValue();
  }

  String lastErr() {
    return lastErr;
  }

  /** The last run's report and stderr, for a failure message. */
  String runOut() {
    try {
      return Files.readString(work.resolve("run.out")) + "\n" + lastErr;
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  /** One of item A's jobs as the state database recorded it. */
  record Job(String outcome, String sessionId, String sessionStart, Path dir, long inputTokens, long outputTokens,
      Double costUsd) {
  }

  /** Item A's jobs, oldest first. */
  List<Job> jobs() throws Exception {
    List<Job> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(".orchestrate/state.db"));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT outcome, session_id, session_start, log_path, input_tokens, "
            + "output_tokens, cost_usd FROM jobs WHERE item_id = 'A' ORDER BY id")) {
      while (rs.next()) {
        double cost = rs.getDouble(7);
        rows.add(new Job(rs.getString(1), rs.getString(2), rs.getString(3),
            dir.resolve(".orchestrate").resolve(rs.getString(4)).getParent(), rs.getLong(5), rs.getLong(6),
            rs.wasNull() ? null : cost));
      }
    }
    return rows;
  }

  /** Makes the item's next attempt continue {@code session}, as if the CLI had printed it. */
  void resumeWith(String session) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(".orchestrate/state.db"));
        Statement st = c.createStatement()) {
      assertEquals(1, st.executeUpdate("UPDATE items SET resume_session = '" + session + "' WHERE id = 'A'"));
    }
  }

  /** The jobs and each one's output, for a failure message. */
  static String describe(List<Job> jobs) {
    StringBuilder b = new StringBuilder();
    for (Job job : jobs) {
      b.append("\n").append(job);
      try {
        b.append("\n").append(Files.readString(job.dir().resolve("output.log")));
      } catch (java.io.IOException e) {
        b.append(e);
      }
    }
    return b.toString();
  }

  String git(String... args) throws Exception {
    return git(dir, args);
  }

  static String git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out;
  }
}
