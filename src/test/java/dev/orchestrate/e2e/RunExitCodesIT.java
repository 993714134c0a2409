package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each exit code of {@code run} (README, "Exit codes") as a script sees it: a bash script per case
 * runs the built launcher and checks {@code $?}. The agents are a few lines of shell (a plain
 * command, or a fake Claude Code for the usage limit and the budget), one phase per item.
 */
class RunExitCodesIT {
  @TempDir
  Path dir;

  /** A plain command agent: WRK-2 blocked when {@code BLOCK} names it, the others complete. */
  private static final String PLAIN_AGENT = """
      #!/usr/bin/env bash
      cat > /dev/null
      touch "started-$ORCHESTRATE_ITEM_ID"
      if [ -n "${SLOW:-}" ]; then sleep 30; fi
      case " ${BLOCK:-} " in
        *" $ORCHESTRATE_ITEM_ID "*) echo '{"result": "blocked", "context": "needs a key"}' >"$ORCHESTRATE_RESULT_FILE";;
        *) echo '{"result": "phase_complete", "summary": "did it"}' >"$ORCHESTRATE_RESULT_FILE";;
      esac
      """;

  /** A fake Claude Code: with {@code LIMITED}, its account's usage limit; else 1,000 tokens a job. */
  private static final String CLAUDE = """
      #!/usr/bin/env bash
      cat > /dev/null
      echo '{"type":"system","subtype":"init","session_id":"s-1"}'
      if [ -n "${LIMITED:-}" ]; then
        echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":'$(( $(date +%s) + 86400 ))',"rateLimitType":"five_hour"}}'
        echo '{"type":"result","subtype":"success","is_error":true,"result":"You'"'"'ve hit your 5-hour limit · resets 6am","total_cost_usd":0}'
        exit 1
      fi
      echo '{"type":"result","subtype":"success","is_error":false,"result":"did it","total_cost_usd":0.001,"usage":{"input_tokens":1000,"output_tokens":0}}'
      """;

  private Path project(String agentLine, int items, String dependsOnFirst) throws Exception {
    Path project = Files.createDirectories(dir.resolve("project"));
    for (String name : new String[] {"agent.sh", "claude"}) {
      Path file = Files.writeString(project.resolve(name), name.equals("claude") ? CLAUDE : PLAIN_AGENT);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.writeString(project.resolve("orchestrate.yaml"), agentLine + """
        execution: {max_retries: 0, max_wip: 1, max_concurrent: 1}
        default_pipeline: one
        pipelines:
          one:
            phases:
              - {name: work, instructions: "Work."}
        """);
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= items; i++) {
      backlog.append("  - {id: WRK-").append(i).append(", title: item ").append(i)
          .append(i > 1 && dependsOnFirst != null ? ", depends_on: [" + dependsOnFirst + "]" : "").append("}\n");
    }
    Files.writeString(project.resolve("backlog.yaml"), backlog);
    return project;
  }

  private Path plainProject(int items) throws Exception {
    return project("agent:\n  command: [\"./agent.sh\"]\n  kill_grace: 1s\n", items, null);
  }

  private Path claudeProject(int items) throws Exception {
    return project("agent: {preset: claude, command: [\"./claude\"]}\n", items, null);
  }

  /** Runs {@code script} with bash in {@code project}, {@code $ORCHESTRATE} the launcher; its output on failure. */
  private static void script(Path project, String script) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", "set -u\nexpect() { [ \"$1\" -eq \"$2\" ] || { echo "
        + "\"exit $1, expected $2\"; exit 1; }; }\n" + script).directory(project.toFile()).redirectErrorStream(true);
    pb.environment().remove("ORCHESTRATE_STATE");
    pb.environment().remove("ORCHESTRATE_CONFIG");
    pb.environment().put("ORCHESTRATE", Launcher.BIN.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    assertEquals(0, p.exitValue(), out);
  }

  @Test
  void every_item_done_exits_0() throws Exception {
    script(plainProject(2), """
        "$ORCHESTRATE" --quiet run --strict-exit >out.txt; expect $? 0
        grep -q 'stopped: every item is done (' out.txt || { cat out.txt; exit 1; }
        """);
  }

  @Test
  void one_item_done_and_one_blocked_exits_0_or_6_with_strict_exit_and_json_names_the_blocked_one() throws Exception {
    script(plainProject(2), """
        BLOCK=WRK-2 "$ORCHESTRATE" --quiet run --json >out.json; expect $? 0
        grep -q '"halt_kind" : "incomplete"' out.json || { cat out.json; exit 1; }
        rm -r .orchestrate
        BLOCK=WRK-2 "$ORCHESTRATE" --quiet run --strict-exit --json >out.json; expect $? 6
        grep -q '"blocked_ids" : \\[ "WRK-2" \\]' out.json || { cat out.json; exit 1; }
        grep -q '"halt_kind" : "incomplete"' out.json || { cat out.json; exit 1; }
        """);
  }

  @Test
  void nothing_done_and_something_blocked_exits_1() throws Exception {
    script(plainProject(1), """
        BLOCK=WRK-1 "$ORCHESTRATE" --quiet run --strict-exit; expect $? 1
        """);
  }

  @Test
  void a_usage_limit_halt_with_every_item_remaining_exits_6() throws Exception {
    script(claudeProject(2), """
        LIMITED=1 "$ORCHESTRATE" --quiet run --strict-exit --json >out.json; expect $? 6
        grep -q '"halt_reason" : "usage_limit"' out.json || { cat out.json; exit 1; }
        """);
  }

  @Test
  void a_budget_halt_with_items_left_exits_6() throws Exception {
    script(claudeProject(3), """
        "$ORCHESTRATE" --quiet run --strict-exit --max-tokens 1500 --json >out.json; expect $? 6
        grep -q '"halt_reason" : "budget"' out.json || { cat out.json; exit 1; }
        """);
  }

  @Test
  void a_bad_flag_exits_2() throws Exception {
    script(plainProject(1), """
        "$ORCHESTRATE" --quiet run --strict-exit --cap 0 2>/dev/null; expect $? 2
        """);
  }

  @Test
  void a_second_run_on_a_locked_state_exits_3_and_a_stopped_run_130() throws Exception {
    script(plainProject(1), """
        SLOW=1 "$ORCHESTRATE" --quiet run >/dev/null 2>&1 &
        first=$!
        for _ in $(seq 300); do [ -e started-WRK-1 ] && break; sleep 0.1; done
        "$ORCHESTRATE" --quiet run --strict-exit 2>/dev/null; expect $? 3
        kill -TERM $first
        wait $first; expect $? 130
        """);
  }
}
