package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The night, compressed (issue 28): 40 items of two phases at 4 concurrent, through the real
 * launcher, with an agent that speaks Claude Code's stream-json (the claude preset) and whose
 * "provider" reaches its usage limit after 10 phases and resets 8 s later. With {@code wait} every
 * item ends done, none blocked, no limited attempt counted, and the pause shows in
 * {@code status --json} while it lasts; with {@code halt} the run halts with {@code usage_limit}
 * (exit 0) and a second run after the reset finishes the work.
 */
class ProviderLimitNightIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  /**
   * The agent: the first 10 calls succeed; then, until the reset (8 s after the first refusal: the pause is that plus orchestrate's 30-s margin, so a shorter reset is a shorter test),
   * every call gets the subscription's limit message with the reset as a rate_limit_event; after
   * it, every call succeeds. A lock directory serialises the counter between concurrent agents.
   */
  private void project(String onUsageLimit) throws Exception {
    project(onUsageLimit, "");
  }

  /** As above; {@code extra} is appended to the config (a fallback profile, say). */
  private void project(String onUsageLimit, String extra) throws Exception {
    Path claude = dir.resolve("bin/claude");
    Files.createDirectories(claude.getParent());
    Files.writeString(claude,
        """
            #!/usr/bin/env bash
            cat > /dev/null
            state='%s'
            until mkdir "$state/lock" 2>/dev/null; do sleep 0.01; done
            n=$(( $(cat "$state/calls" 2>/dev/null || echo 0) + 1 )); echo $n > "$state/calls"
            now=$(date +%%s)
            if [ $n -gt 10 ] && [ ! -f "$state/reset" ]; then echo $(( now + 8 )) > "$state/reset"; fi
            reset=$(cat "$state/reset" 2>/dev/null || echo 0)
            rmdir "$state/lock"
            echo '{"type":"system","subtype":"init","session_id":"s-'$n'"}'
            if [ $n -gt 10 ] && [ "$now" -lt "$reset" ]; then
              echo "limited $ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" >> "$state/limited"
              echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":'$reset',"rateLimitType":"five_hour"}}'
              echo '{"type":"result","subtype":"success","is_error":true,"result":"You'"'"'ve hit your 5-hour limit · resets soon","total_cost_usd":0}'
              exit 1
            fi
            sleep 0.2
            echo '{"type":"result","subtype":"success","is_error":false,"result":"did '$ORCHESTRATE_PHASE'","total_cost_usd":0.001,"usage":{"input_tokens":10,"output_tokens":2}}'
            """
            .formatted(dir.resolve("provider")));
    Files.createDirectories(dir.resolve("provider"));
    Files.setPosixFilePermissions(claude, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: claude
          command: ["%s"]
          timeout: 60s
          on_usage_limit: %s
          max_wait: 10m
        execution: {max_concurrent: 4, max_wip: 4, max_retries: 0, circuit_breaker: 1}
        default_pipeline: two
        pipelines:
          two:
            phases:
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review."}
        """.formatted(claude, onUsageLimit) + extra);
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= 40; i++) {
      backlog.append("  - {id: I").append(i).append(", title: item ").append(i).append("}\n");
    }
    Files.writeString(dir.resolve("backlog.yaml"), backlog);
  }

  private JsonNode json(String... args) throws Exception {
    Launcher.Result r = Launcher.run(dir, args);
    assertEquals(0, r.exitCode(), r.err());
    return JSON.readTree(r.out());
  }

  private long limitedJobs(JsonNode jobs) {
    long n = 0;
    for (JsonNode job : jobs.path("jobs")) {
      n += "usage_limit".equals(job.path("outcome").asText()) ? 1 : 0;
    }
    return n;
  }

  @Test
  void with_wait_every_item_ends_done_none_blocked_and_the_pause_shows_while_it_lasts() throws Exception {
    project("wait");
    Process run = Launcher.builder(dir, "--state", "state", "run", "--json", "--no-live")
        .redirectOutput(dir.resolve("run.json").toFile()).redirectError(dir.resolve("run.err").toFile()).start();
    AtomicBoolean sawPause = new AtomicBoolean();
    Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
    while (run.isAlive() && Instant.now().isBefore(deadline)) {
      if (!sawPause.get() && Files.exists(dir.resolve("provider/limited"))) {
        Launcher.Result status = Launcher.run(dir, "--state", "state", "status", "--json");
        JsonNode pauses = JSON.readTree(status.out()).path("agent_pauses");
        if (pauses.size() == 1) {
          assertEquals("claude", pauses.get(0).path("profile").asText());
          assertEquals("usage_limit", pauses.get(0).path("kind").asText());
          sawPause.set(true);
        }
      }
      Thread.sleep(300);
    }
    assertTrue(run.waitFor(10, TimeUnit.SECONDS), "the run ended");
    assertEquals(0, run.exitValue(), Files.readString(dir.resolve("run.err")));
    assertTrue(sawPause.get(), "status --json showed the pause while it lasted");

    JsonNode report = JSON.readTree(Files.readString(dir.resolve("run.json")));
    assertEquals("all_done", report.path("halt_reason").asText());
    assertEquals(40, report.path("items").path("done").asInt());
    assertEquals(0, report.path("items").path("blocked").asInt());
    assertEquals(80, report.path("phases_run").asInt(), "limited attempts took no phase of the cap");
    JsonNode jobs = json("--state", "state", "jobs", "--json", "--limit", "500");
    long limited = limitedJobs(jobs);
    assertTrue(limited >= 1, "some attempts met the limit");
    assertEquals(80 + limited, jobs.path("jobs").size());
    for (JsonNode item : json("--state", "state", "status", "--json").path("items")) {
      assertEquals("done", item.path("status").asText(), item.toString());
    }
    assertEquals(0, json("--state", "state", "status", "--json").path("agent_pauses").size(), "over");
  }

  @Test
  void with_halt_the_run_halts_with_usage_limit_exit_0_and_a_second_run_after_the_reset_finishes() throws Exception {
    project("halt");
    Launcher.Result first = Launcher.run(dir, "--state", "state", "run", "--json", "--no-live");
    assertEquals(0, first.exitCode(), first.err());
    JsonNode report = JSON.readTree(first.out());
    assertEquals("usage_limit", report.path("halt_reason").asText());
    assertTrue(report.path("halt_detail").asText().contains("claude hit its usage limit"), report.toString());
    assertEquals(0, report.path("items").path("blocked").asInt());

    Launcher.Result early = Launcher.run(dir, "--state", "state", "run", "--no-live");
    assertEquals(0, early.exitCode(), early.err());
    assertTrue(early.out().contains("is paused by its usage limit"), early.out());

    long reset = Long.parseLong(Files.readString(dir.resolve("provider/reset")).strip());
    while (Instant.now().getEpochSecond() < reset + 31) {
      Thread.sleep(500);
    }
    JsonNode second = JSON.readTree(Launcher.run(dir, "--state", "state", "run", "--json", "--no-live").out());
    assertEquals("all_done", second.path("halt_reason").asText(), second.toString());
    assertEquals(40, second.path("items").path("done").asInt());
    assertEquals(0, second.path("items").path("blocked").asInt());
  }

  @Test
  void with_a_fallback_profile_the_other_agent_does_the_work_during_the_pause_and_jobs_shows_who_did_what()
      throws Exception {
    Path backup = dir.resolve("bin/backup");
    Files.createDirectories(backup.getParent());
    Files.writeString(backup, "#!/usr/bin/env bash\ncat > /dev/null\necho \"backup did $ORCHESTRATE_PHASE\"\n");
    Files.setPosixFilePermissions(backup, PosixFilePermissions.fromString("rwxr-xr-x"));
    project("halt", """
        agents:
          backup: {command: ["%s"], timeout: 60s}
        """.formatted(backup));
    // the pipeline falls back to backup while claude is paused
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, Files.readString(config).replace("  two:\n", "  two:\n    fallback: [backup]\n"));

    Launcher.Result run = Launcher.run(dir, "--state", "state", "run", "--json", "--no-live");
    assertEquals(0, run.exitCode(), run.err());
    JsonNode report = JSON.readTree(run.out());
    assertEquals("all_done", report.path("halt_reason").asText(), "no halt while a fallback works: " + report);
    assertEquals(40, report.path("items").path("done").asInt());
    assertEquals(0, report.path("items").path("blocked").asInt());
    JsonNode jobs = json("--state", "state", "jobs", "--json", "--limit", "500");
    long byClaude = 0;
    long byBackup = 0;
    for (JsonNode job : jobs.path("jobs")) {
      boolean succeeded = "succeeded".equals(job.path("outcome").asText());
      byClaude += succeeded && "claude".equals(job.path("agent").asText()) ? 1 : 0;
      byBackup += succeeded && "backup".equals(job.path("agent").asText()) ? 1 : 0;
    }
    assertTrue(byClaude >= 10 && byBackup >= 1, "claude " + byClaude + ", backup " + byBackup);
    assertEquals(80, byClaude + byBackup, "every phase once, by one or the other");
    Launcher.Result text = Launcher.run(dir, "--state", "state", "jobs", "--limit", "500");
    assertTrue(text.out().lines().findFirst().orElse("").contains("AGENT") || text.out().contains(" AGENT"),
        text.out());
  }
}
