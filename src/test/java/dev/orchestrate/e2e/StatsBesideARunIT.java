package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stats --json} and {@code compact --incremental} from other processes while a real runner
 * works on the state, from a directory without backlog or config (as a cron job calls them).
 */
class StatsBesideARunIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static JsonNode structure(JsonNode doc, String name) {
    for (JsonNode s : doc.get("structures")) {
      if (s.get("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError(name);
  }

  @Test
  void stats_reads_a_live_run_and_the_run_sees_its_sample_and_compact_beside_it() throws Exception {
    Path project = Files.createDirectories(dir.resolve("project"));
    // Items 1..3 finish at once; item 4's agent waits until the test releases it.
    Files.writeString(project.resolve("agent.sh"), """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_ITEM_ID" = I4 ]; then
          echo $$ > agent.pid
          while [ ! -e release ]; do sleep 0.1; done
        fi
        echo done
        """);
    Files.writeString(project.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
        execution: {max_wip: 1, max_concurrent: 1}
        retention:
          maintenance_interval: 100ms
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """);
    Files.writeString(project.resolve("backlog.yaml"), """
        items:
          - {id: I1, title: a}
          - {id: I2, title: b}
          - {id: I3, title: c}
          - {id: I4, title: d}
        """);
    Path state = dir.resolve("state");
    Process runner = Launcher.builder(project, "--state", state.toString(), "--quiet", "run")
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    Path elsewhere = Files.createDirectories(dir.resolve("cron"));
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!Files.exists(project.resolve("agent.pid")) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(Files.exists(project.resolve("agent.pid")), "I4's agent started");

      Launcher.Result stats = Launcher.run(elsewhere, "--state", state.toString(), "stats", "--json", "--check");
      assertEquals(0, stats.exitCode(), stats.err() + stats.out());
      JsonNode doc = JSON.readTree(stats.out());
      assertEquals("stats", doc.get("kind").asText());
      assertEquals(4, structure(doc, "items").get("rows").asLong());
      assertEquals(4, structure(doc, "jobs").get("rows").asLong(), "3 ended and the running one");
      assertEquals(10_000, structure(doc, "jobs").get("limit").get("max_rows").asLong(),
          "the policy the run's maintenance recorded");
      assertTrue(doc.get("last_run").get("ended_at").isNull(), "the run is still going");
      assertTrue(doc.get("trend").get("samples").asInt() >= 1, "the run's maintenance samples");

      Launcher.Result compact = Launcher.run(elsewhere, "--state", state.toString(), "compact", "--incremental",
          "--json");
      assertEquals(0, compact.exitCode(), compact.err());
      assertEquals(0, JSON.readTree(compact.out()).get("retention").get("jobs").get("deleted").asLong(),
          "nothing is beyond the default policy, and the running job is never touched");

      Files.writeString(project.resolve("release"), "");
      assertTrue(runner.waitFor(60, TimeUnit.SECONDS), "the run ends once I4's agent finishes");
      assertEquals(0, runner.exitValue(), Files.readString(dir.resolve("err.txt")));
    } finally {
      Files.writeString(project.resolve("release"), "");
      if (runner.isAlive()) {
        runner.destroyForcibly();
      }
    }
    JsonNode after = JSON.readTree(Launcher.run(elsewhere, "--state", state.toString(), "stats", "--json").out());
    assertEquals("all_done", after.get("last_run").get("halt_reason").asText());
    assertEquals(0, after.get("last_run").get("summary_map").get("final").asInt());
    assertEquals(4, structure(after, "jobs").get("rows").asLong());
    assertTrue(Files.exists(state.resolve("state.db")));
  }
}
