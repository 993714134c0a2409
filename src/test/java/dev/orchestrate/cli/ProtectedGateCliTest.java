package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent cannot rewrite its own gate: an attempt that changes the script a gate runs (or a
 * verify_protected path) fails as protected_changed, its work not kept, and nothing of it lands.
 */
class ProtectedGateCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private ProjectCli project;
  private GitRepo repo;

  private CliRunner.Result cli(String... args) {
    return project.cli(args);
  }

  /** Attempt 1 neutralises the gate (and a protected fixture); attempt 2, told, does the work. */
  private void write(String phaseExtra) throws Exception {
    write(phaseExtra, "");
  }

  /** {@code hide}: what attempt 1 runs before it rewrites the files. */
  private void write(String phaseExtra, String hide) throws Exception {
    project = ProjectCli.init(tmp.resolve("project"));
    repo = project.repo;
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        cp "$ORCHESTRATE_PROMPT_FILE" "%1$s/prompt-$ORCHESTRATE_ATTEMPT.md"
        if [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
          %2$s
          printf '#!/bin/sh\\nexit 0\\n' > gates/check.sh
          echo tampered > fixtures/expected.txt
          echo "made the gate pass"; exit 0
        fi
        echo ok > ok.txt
        echo "did the work"
        """.formatted(tmp, hide));
    repo.write("gates/check.sh", "#!/bin/sh\ngrep -q ok ok.txt 2>/dev/null || { echo 'ok.txt is missing'; exit 1; }\n");
    repo.write("fixtures/expected.txt", "expected\n");
    repo.write("backlog.yaml", "schema_version: 1\nitems:\n  - {id: A, title: Item A}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          workspace: worktree
          max_retries: 2
        default_pipeline: one
        pipelines:
          one:
            verify: [{name: check, run: "sh gates/check.sh"}]
            verify_protected: [fixtures/]
            phases:
              - {name: build, instructions: "Build it."%s}
        """.formatted(agent, phaseExtra));
    repo.commitAll("the project");
  }

  @Test
  void an_agent_that_rewrites_its_gate_script_is_caught_and_its_work_is_not_kept() throws Exception {
    write("");
    assertTamperingCaughtAndRetried();
  }

  /** Runs the project, which ends with its one item done; its jobs, as `jobs --json` lists them. */
  private JsonNode jobsOfARunToDone() throws Exception {
    CliRunner.Result run = project.run();
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(1, JSON.readTree(run.out()).at("/items/done").asInt(), run.out());
    return JSON.readTree(cli("jobs", "--json").out()).at("/jobs");
  }

  /**
   * The agent: attempt 1 runs {@code firstAttempt} (with {@code %1$s} the test's directory), then,
   * unless that exits, the work; later attempts do the work.
   */
  private void firstAttemptThenTheWork(String firstAttempt) throws Exception {
    Files.writeString(tmp.resolve("agent.sh"), """
        #!/usr/bin/env bash
        cp "$ORCHESTRATE_PROMPT_FILE" "%1$s/prompt-$ORCHESTRATE_ATTEMPT.md"
        if [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
        """.formatted(tmp) + firstAttempt.formatted(tmp) + """
        fi
        echo ok > ok.txt
        echo "did the work"
        """);
  }

  /** The job refused as protected_changed, or null. */
  private static JsonNode refusedJob(JsonNode jobs) {
    JsonNode refused = null;
    for (JsonNode job : jobs) {
      refused = job.at("/outcome").asText().equals("protected_changed") ? job : refused;
    }
    return refused;
  }

  private static List<String> outcomes(JsonNode jobs) {
    List<String> classes = new ArrayList<>();
    jobs.forEach(job -> classes.add(job.at("/outcome").asText()));
    return classes;
  }

  /**
   * The run ends with the item done; the tampering attempt was refused as protected_changed, its
   * retry told which files, and main has the gate and fixture it had, with the retry's work.
   */
  private void assertTamperingCaughtAndRetried() throws Exception {
    JsonNode jobs = jobsOfARunToDone();
    assertTrue(outcomes(jobs).contains("protected_changed"), "the tampering attempt's class: " + jobs);
    String second = Files.readString(tmp.resolve("prompt-2.md"));
    assertTrue(second.contains("gates/check.sh") && second.contains("fixtures/expected.txt"),
        "the retry is told which files: " + second);
    assertEquals("#!/bin/sh\ngrep -q ok ok.txt 2>/dev/null || { echo 'ok.txt is missing'; exit 1; }\n",
        GitRepo.read(repo.dir.resolve("gates/check.sh")), "the gate on main is the one it was");
    assertEquals("expected\n", GitRepo.read(repo.dir.resolve("fixtures/expected.txt")));
    assertEquals("ok\n", GitRepo.read(repo.dir.resolve("ok.txt")));
  }

  /**
   * The same agent hides its rewrites from git first (an assume-unchanged bit on the gate's script, a
   * skip-worktree bit on the fixture), with which `git status` would not see them: the bits are
   * cleared once the attempt ends, and the rewrites are caught as before.
   */
  @Test
  void an_agent_that_hides_its_rewrite_behind_index_bits_is_caught_all_the_same() throws Exception {
    write("", "git update-index --assume-unchanged gates/check.sh && git update-index --skip-worktree "
        + "fixtures/expected.txt || exit 3");
    assertTamperingCaughtAndRetried();
  }

  /**
   * An agent that does the work and smuggles a rewritten gate into its phase commit through the
   * index: the rewrite staged and written as a tree (the index's cache of trees holds it), the
   * original put back on disk, and the entry given the original blob and that file's stat data. Its
   * worktree and `git status` look untouched and its gate passes honestly, but `git commit` builds
   * the commit from the cached tree: the commit is undone and the attempt refused.
   */
  @Test
  void an_agent_that_smuggles_a_rewritten_gate_through_the_index_cache_is_refused() throws Exception {
    write("");
    Files.writeString(tmp.resolve("Forge.java"), FORGE);
    Files.writeString(tmp.resolve("agent.sh"), """
        #!/usr/bin/env bash
        cp "$ORCHESTRATE_PROMPT_FILE" "%1$s/prompt-$ORCHESTRATE_ATTEMPT.md"
        if [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
          blob=$(git rev-parse HEAD:gates/check.sh) || exit 3
          git show HEAD:gates/check.sh > "%1$s/original.sh" || exit 3
          printf '#!/bin/sh\\nexit 0\\n' > gates/check.sh
          git add gates/check.sh && git write-tree > /dev/null || exit 3
          cp "%1$s/original.sh" gates/check.sh
          touch -t 202311140000 gates/check.sh
          "%2$s" "%1$s/Forge.java" "$(git rev-parse --git-path index)" gates/check.sh "$blob" || exit 4
          [ -z "$(git status --porcelain -- gates)" ] || exit 5
        fi
        echo ok > ok.txt
        echo "did the work"
        """.formatted(tmp, Path.of(System.getProperty("java.home"), "bin", "java")));
    JsonNode jobs = jobsOfARunToDone();
    assertTrue(outcomes(jobs).contains("protected_changed"), "the smuggling attempt's class: " + jobs);
    assertTrue(Files.readString(tmp.resolve("prompt-2.md")).contains("gates/check.sh"), "the retry is told");
    assertEquals("#!/bin/sh\ngrep -q ok ok.txt 2>/dev/null || { echo 'ok.txt is missing'; exit 1; }\n",
        GitRepo.read(repo.dir.resolve("gates/check.sh")), "the gate on main is the one it was");
    assertEquals("#!/bin/sh\ngrep -q ok ok.txt 2>/dev/null || { echo 'ok.txt is missing'; exit 1; }",
        repo.git("show", "main:gates/check.sh"), "and so is main's commit");
  }

  /**
   * A gate script rewritten to put the original back as it runs, then pass: after the gates nothing
   * would be left to see. The files are checked before the gates run, which then do not.
   */
  @Test
  void an_agent_whose_rewritten_gate_puts_itself_back_is_refused_before_the_gate_runs() throws Exception {
    write("");
    firstAttemptThenTheWork("""
        git show HEAD:gates/check.sh > "%1$s/original.sh" || exit 3
        printf 'cp "%1$s/original.sh" gates/check.sh\\nexit 0\\n' > gates/check.sh
        echo "made the gate pass"; exit 0
        """);
    JsonNode jobs = jobsOfARunToDone();
    assertTrue(outcomes(jobs).contains("protected_changed"), "the attempt's class: " + jobs);
    JsonNode refused = refusedJob(jobs);
    assertEquals(0, refused.at("/checks").size(), "its gate never ran: " + refused);
    assertEquals("#!/bin/sh\ngrep -q ok ok.txt 2>/dev/null || { echo 'ok.txt is missing'; exit 1; }\n",
        GitRepo.read(repo.dir.resolve("gates/check.sh")), "the gate on main is the one it was");
  }

  /**
   * A new file in a protected directory (one a test runner would pick up, and could delete as it
   * runs) is refused before the gates run, like a changed one.
   */
  @Test
  void an_agent_that_adds_a_file_to_a_protected_directory_is_refused_before_the_gates_run() throws Exception {
    write("");
    firstAttemptThenTheWork("""
        echo "extra" > fixtures/extra.txt
        echo "added a fixture"; exit 0
        """);
    JsonNode jobs = jobsOfARunToDone();
    JsonNode refused = refusedJob(jobs);
    assertTrue(refused != null && refused.at("/checks").size() == 0, "refused, its gate never ran: " + jobs);
    assertTrue(Files.readString(tmp.resolve("prompt-2.md")).contains("fixtures/extra.txt"), "the retry is told");
    assertFalse(Files.exists(repo.dir.resolve("fixtures/extra.txt")), "nothing of it landed");
  }

  /**
   * Gives an index entry (versions 2 and 3, SHA-1) a blob id and the stat data of the file at its
   * path: java Forge.java INDEX PATH BLOB.
   */
  private static final String FORGE = """
      import java.nio.ByteBuffer;
      import java.nio.file.*;
      import java.nio.file.attribute.FileTime;
      import java.util.*;
      import java.util.concurrent.TimeUnit;

      public class Forge {
        public static void main(String[] a) throws Exception {
          Path index = Path.of(a[0]);
          byte[] bytes = Files.readAllBytes(index);
          ByteBuffer in = ByteBuffer.wrap(bytes);
          int at = 12;
          for (int i = 0; i < in.getInt(8); i++) {
            int flags = Short.toUnsignedInt(in.getShort(at + 60));
            int name = at + 62 + ((flags & 0x4000) != 0 ? 2 : 0);
            int length = flags & 0xFFF;
            if (new String(bytes, name, length).equals(a[1])) {
              Map<String, Object> st = Files.readAttributes(Path.of(a[1]), "unix:*", LinkOption.NOFOLLOW_LINKS);
              FileTime c = (FileTime) st.get("ctime");
              FileTime m = (FileTime) st.get("lastModifiedTime");
              in.putInt(at, (int) c.to(TimeUnit.SECONDS));
              in.putInt(at + 4, (int) (c.to(TimeUnit.NANOSECONDS) % 1_000_000_000L));
              in.putInt(at + 8, (int) m.to(TimeUnit.SECONDS));
              in.putInt(at + 12, (int) (m.to(TimeUnit.NANOSECONDS) % 1_000_000_000L));
              in.putInt(at + 16, (int) (long) (Long) st.get("dev"));
              in.putInt(at + 20, (int) (long) (Long) st.get("ino"));
              in.putInt(at + 28, (Integer) st.get("uid"));
              in.putInt(at + 32, (Integer) st.get("gid"));
              in.putInt(at + 36, (int) (long) (Long) st.get("size"));
              System.arraycopy(HexFormat.of().parseHex(a[2]), 0, bytes, at + 40, 20);
              Files.write(index, bytes);
              return;
            }
            at += ((name + length - at) + 8) & ~7;
          }
          System.exit(4);
        }
      }
      """;

  @Test
  void a_phase_with_changes_gates_may_change_them() throws Exception {
    write(", changes_gates: true");
    CliRunner.Result run = project.run();
    assertEquals(0, run.exitCode(), run.err());
    assertEquals("#!/bin/sh\nexit 0\n", GitRepo.read(repo.dir.resolve("gates/check.sh")),
        "allowed: the first attempt's rewrite landed");
  }
}
