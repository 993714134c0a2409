package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backlog from a command (issue 47, item 3) through the built launcher: a scripted {@code gh} on
 * PATH lists 5 issues as {@code gh issue list --json} does and logs every call; a scripted agent
 * completes each. All 5 reach done, {@code on_done} ran exactly once per item, and a second run
 * over the same state (the issues still listed) calls it for none again.
 */
class BacklogCommandIT {
  @TempDir
  Path dir;

  private static final String GH = """
      #!/usr/bin/env bash
      echo "$*" >> "$(dirname "$0")/../gh-calls.log"
      case "$1 $2" in
        "issue list")
          if [ -n "${GH_DOWN:-}" ] || { [ -n "${GH_FLAKY:-}" ] && [ "$(grep -c '^issue list' "$(dirname "$0")/../gh-calls.log")" -gt 1 ]; }; then
            echo "gh: HTTP 502: Bad Gateway (https://api.github.com/graphql)" >&2; exit 1
          fi
          echo '['
          for n in 1 2 3 4 5; do
            sep=,; [ $n = 5 ] && sep=
            echo '{"number": '$n', "title": "Issue '$n'", "body": "Do thing '$n'.",'
            echo ' "labels": [{"id": "L", "name": "orchestrate", "color": "fff"}]}'$sep
          done
          echo ']';;
        "issue close"|"issue comment") ;;
        *) echo "gh: unknown command $*" >&2; exit 1;;
      esac
      """;

  private static final String AGENT = """
      #!/usr/bin/env bash
      cat > /dev/null
      sleep "${AGENT_SLEEP:-0}"
      echo '{"result": "phase_complete", "summary": "did it"}' >"$ORCHESTRATE_RESULT_FILE"
      """;

  private Path project() throws Exception {
    Path project = Files.createDirectories(dir.resolve("project"));
    Files.createDirectories(project.resolve("bin"));
    executable(project.resolve("bin/gh"), GH);
    executable(project.resolve("agent.sh"), AGENT);
    Files.writeString(project.resolve("orchestrate.yaml"), """
        agent:
          command: ["./agent.sh"]
          kill_grace: 1s
        execution: {max_retries: 0, max_wip: 5, max_concurrent: 2}
        default_pipeline: one
        pipelines:
          one:
            phases:
              - {name: work, instructions: "Work."}
        backlog:
          source:
            command: "gh issue list --label orchestrate --state all --json number,title,body,labels"
            id_prefix: GH-
            refresh: 1s
            on_done: ["gh", "issue", "close", "{source_id}", "--comment", "{id} done: {title}"]
            on_blocked: "gh issue comment {source_id} --body {reason}"
        """);
    return project;
  }

  private static void executable(Path file, String text) throws Exception {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static String run(Path project, String... env) throws Exception {
    return run(project, 0, env);
  }

  /** {@code run --json} through the launcher, {@code env} as NAME=VALUE pairs; its stdout. */
  private static String run(Path project, int exit, String... env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(Launcher.BIN.toString(), "--quiet", "run", "--json")
        .directory(project.toFile()).redirectError(project.resolve("stderr.txt").toFile());
    pb.environment().remove("ORCHESTRATE_STATE");
    pb.environment().remove("ORCHESTRATE_CONFIG");
    pb.environment().put("PATH", project.resolve("bin") + ":" + System.getenv("PATH"));
    for (String pair : env) {
      pb.environment().put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(exit, p.exitValue(), out + Files.readString(project.resolve("stderr.txt")));
    return out;
  }

  private static List<String> calls(Path project, String prefix) throws Exception {
    return Files.readAllLines(project.resolve("gh-calls.log")).stream().filter(l -> l.startsWith(prefix)).sorted()
        .toList();
  }

  @Test
  void five_issues_run_to_done_and_each_is_closed_once_also_after_a_restart() throws Exception {
    Path project = project();
    // Each agent takes a second, so the list is read again during the run: gh fails then, the run goes on.
    String first = run(project, "GH_FLAKY=1", "AGENT_SLEEP=1");
    assertTrue(first.contains("\"done\" : 5"), first);
    List<String> warnings = Files.readAllLines(project.resolve("stderr.txt")).stream()
        .filter(l -> l.contains("warning: backlog.source.command")).toList();
    assertEquals(List.of("orchestrate: warning: backlog.source.command (gh issue list --label orchestrate --state all "
        + "--json number,…): failed: exit 1: gh: HTTP 502: Bad Gateway (https://api.github.com/graphql) (the run goes "
        + "on with the last good backlog)"), warnings, "said once however often it failed");
    List<String> closed = List.of("issue close 1 --comment GH-1 done: Issue 1", "issue close 2 --comment GH-2 done: "
        + "Issue 2", "issue close 3 --comment GH-3 done: Issue 3", "issue close 4 --comment GH-4 done: Issue 4",
        "issue close 5 --comment GH-5 done: Issue 5");
    assertEquals(closed, calls(project, "issue close"));
    assertEquals(List.of(), calls(project, "issue comment"));

    String second = run(project);
    assertTrue(second.contains("\"done\" : 5"), second);
    assertEquals(closed, calls(project, "issue close"), "a restart calls no done command again");
    assertTrue(calls(project, "issue list").size() >= 3, "the list was read by each run, and again in the first");
  }

  @Test
  void a_failing_command_refuses_the_run_with_one_line_naming_it() throws Exception {
    Path project = project();
    String out = run(project, 2, "GH_DOWN=1");
    assertEquals("", out);
    assertEquals(List.of("orchestrate: error: backlog.source.command (gh issue list --label orchestrate --state all "
        + "--json number,…): failed: exit 1: gh: HTTP 502: Bad Gateway (https://api.github.com/graphql)"),
        Files.readAllLines(project.resolve("stderr.txt")));
    assertFalse(Files.exists(project.resolve(".orchestrate/state.db")), "nothing was written");
  }
}
