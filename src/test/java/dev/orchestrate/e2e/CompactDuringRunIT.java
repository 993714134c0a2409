package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes: `compact` from "cron" in a loop while a `run` of 200 items works on the same state. */
class CompactDuringRunIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void compact_in_a_loop_and_a_run_of_200_items_both_succeed_and_the_counts_add_up() throws Exception {
    Files.writeString(dir.resolve("agent.sh"), "#!/usr/bin/env bash\nexit 0\n");
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
        default_pipeline: quick
        pipelines:
          quick:
            phases:
              - name: build
                instructions: "Build it."
        """);
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 0; i < 200; i++) {
      backlog.append(String.format("  - {id: W%03d, title: Item %d}%n", i, i));
    }
    Files.writeString(dir.resolve("backlog.yaml"), backlog);
    Path state = dir.resolve("state");

    Path runOut = dir.resolve("run.out");
    Path runErr = dir.resolve("run.err");
    Process run = Launcher.builder(dir, "--quiet", "--state", state.toString(), "run", "backlog.yaml", "--cap", "1000",
        "--json").redirectOutput(runOut.toFile()).redirectError(runErr.toFile()).start();
    long deleted = 0;
    int passes = 0;
    while (run.isAlive() || passes == 0) {
      Launcher.Result r = Launcher.run(dir, "--state", state.toString(), "compact", "--keep-recent", "5", "--json");
      assertEquals(0, r.exitCode(), r.err());
      assertFalse(r.err().contains("locked"), r.err());
      deleted += JSON.readTree(r.out()).get("memory").get("deleted").asLong();
      passes++;
    }
    assertTrue(run.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, run.exitValue(), Files.readString(runErr));
    JsonNode report = JSON.readTree(Files.readString(runOut));
    assertEquals(200, report.get("items").get("done").asInt());
    assertTrue(passes > 1, "compact ran during the run: " + passes);

    Launcher.Result last = Launcher.run(dir, "--state", state.toString(), "compact", "--keep-recent", "5", "--json");
    deleted += JSON.readTree(last.out()).get("memory").get("deleted").asLong();
    assertEquals(195, deleted, "200 outcome memories: 195 deleted over all passes, 5 kept");
    Launcher.Result listed = Launcher.run(dir, "--state", state.toString(), "memory", "list", "--json");
    assertEquals(5, JSON.readTree(listed.out()).get("items").size());
    Launcher.Result status = Launcher.run(dir, "--state", state.toString(), "status", "--json");
    assertEquals(200, JSON.readTree(status.out()).get("counts").get("done").asInt());
  }
}
