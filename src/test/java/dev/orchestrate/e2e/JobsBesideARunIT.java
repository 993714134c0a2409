package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jobs} and {@code unblock} from another process while a real runner works on the state. */
class JobsBesideARunIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void jobs_shows_the_running_job_and_unblock_exits_3_until_the_run_ends() throws Exception {
    // A reports blocked at once; B's agent waits until the test releases it.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_ITEM_ID" = A ]; then
          printf '{"result": "blocked", "context": "needs a key"}' > "$ORCHESTRATE_RESULT_FILE"
          exit 0
        fi
        echo $$ > agent.pid
        while [ ! -e release ]; do sleep 0.1; done
        echo built
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a, status: ready}\n  - {id: B, title: b, status: ready}\n");
    Process runner = Launcher.builder(dir, "--state", "state", "--quiet", "run")
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!Files.exists(dir.resolve("agent.pid")) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(Files.exists(dir.resolve("agent.pid")), "B's agent started");

      Launcher.Result jobs = Launcher.run(dir, "--state", "state", "jobs", "--json");
      assertEquals(0, jobs.exitCode(), jobs.err());
      JsonNode doc = JSON.readTree(jobs.out());
      assertEquals("running", doc.get("run").get("state").asText());
      JsonNode running = doc.get("jobs").get(0);
      assertEquals("B running", running.get("item_id").asText() + " " + running.get("state").asText());
      assertTrue(running.get("ended_at").isNull());
      JsonNode blocked = doc.get("jobs").get(1);
      assertEquals("A blocked blocked", blocked.get("item_id").asText() + " " + blocked.get("state").asText() + " "
          + blocked.get("result").asText());

      Launcher.Result refused = Launcher.run(dir, "--state", "state", "unblock", "A", "--notes", "the key is in vault");
      assertEquals(3, refused.exitCode(), refused.err());
      assertEquals("", refused.out());
      List<String> lines = refused.err().lines().toList();
      assertEquals(1, lines.size(), refused.err());
      assertTrue(lines.get(0).startsWith("orchestrate: error: state directory ")
          && lines.get(0).contains(" is in use by another run (pid "), lines.get(0));

      Files.writeString(dir.resolve("release"), "");
      assertTrue(runner.waitFor(60, TimeUnit.SECONDS), "the run ends once B's agent finishes");
      assertEquals(0, runner.exitValue(), Files.readString(dir.resolve("err.txt")));
    } finally {
      Files.writeString(dir.resolve("release"), "");
      if (runner.isAlive()) {
        runner.destroyForcibly();
      }
    }

    Launcher.Result unblocked = Launcher.run(dir, "--state", "state", "unblock", "A", "--notes", "the key is in vault");
    assertEquals(0, unblocked.exitCode(), unblocked.err());
    JsonNode after = JSON.readTree(Launcher.run(dir, "--state", "state", "jobs", "--json").out());
    assertEquals("ended", after.get("run").get("state").asText());
    assertEquals("all_done", after.get("run").get("halt_reason").asText());
    assertEquals("completed", after.get("jobs").get(0).get("state").asText());
  }
}
