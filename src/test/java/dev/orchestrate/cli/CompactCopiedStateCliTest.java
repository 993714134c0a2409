package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.Db;
import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 point 17: compacting a copy of a state directory deletes the copy's job logs, never the original's. */
class CompactCopiedStateCliTest {
  @TempDir
  Path dir;

  private static List<String> jobDirectories(Path state) throws IOException {
    try (Stream<Path> entries = Files.list(state.resolve("jobs"))) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void compact_on_a_cp_a_copy_prunes_the_copys_old_job_directories_and_leaves_the_originals_intact() throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.sh"), "#!/usr/bin/env bash\nexit 0\n");
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n  - {id: C, title: c}\n");
    Path original = dir.resolve("original");
    CliRunner.Result run = CliRunner.run("--state", original.toString(), "--config", config.toString(), "run",
        backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    List<String> before = jobDirectories(original);
    assertEquals(6, before.size(), before.toString());

    Path copy = dir.resolve("copy");
    Process cp = new ProcessBuilder("cp", "-a", original.toString(), copy.toString()).inheritIO().start();
    assertEquals(0, cp.waitFor());
    Path keepTwo = Files.writeString(dir.resolve("keep-two.yaml"),
        "retention:\n  jobs: {max_rows: 2, max_age: none}\n");
    CliRunner.Result compact = CliRunner.run("--state", copy.toString(), "--config", keepTwo.toString(), "compact");

    assertEquals(0, compact.exitCode(), compact.err());
    assertEquals(before, jobDirectories(original), "the original keeps every job directory");
    for (String name : before) {
      assertTrue(Files.isRegularFile(original.resolve("jobs").resolve(name).resolve("output.log")), name);
    }
    List<String> kept = TestStores.read(copy, store -> TestStores.jobs(store).stream()
        .map(j -> j.logPath().getParent().getFileName().toString()).toList());
    assertTrue(kept.size() < before.size() && !kept.isEmpty(), compact.out());
    assertEquals(before.subList(before.size() - kept.size(), before.size()), kept, "the newest jobs are kept");
    assertEquals(kept, jobDirectories(copy), "the copy keeps the directories of its kept jobs, and only those");
    assertEquals(6, (int) TestStores.read(original, store -> TestStores.jobs(store).size()));
  }

  @Test
  void a_copy_of_a_state_written_before_schema_7_with_absolute_paths_compacts_only_its_own_job_directories()
      throws Exception {
    Path original = dir.resolve("original");
    StringBuilder sql = new StringBuilder("INSERT INTO runs (id, started_at, pid) VALUES (1, 0, 1);");
    List<String> names = new java.util.ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      String name = "run1-000" + i + "-A-first-" + i;
      names.add(name);
      Path job = Files.createDirectories(original.resolve("jobs").resolve(name));
      Files.writeString(job.resolve("output.log"), "log " + i);
      sql.append("INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, ended_at, log_path) VALUES (1,"
          + " 'A', 'first', " + i + ", 'failed', " + i + ", " + i + ", '" + job.resolve("output.log") + "');");
    }
    dev.orchestrate.state.sqlite.OldSchemas.create(original.resolve("state.db"), 6, sql.toString());
    Path copy = dir.resolve("copy");
    Process cp = new ProcessBuilder("cp", "-a", original.toString(), copy.toString()).inheritIO().start();
    assertEquals(0, cp.waitFor());
    Path keepTwo = Files.writeString(dir.resolve("keep-two.yaml"),
        "retention:\n  jobs: {max_rows: 2, max_age: none}\n");

    CliRunner.Result compact = CliRunner.run("--state", copy.toString(), "--config", keepTwo.toString(), "compact");

    assertEquals(0, compact.exitCode(), compact.err());
    assertEquals(names, jobDirectories(original), "the original keeps every job directory");
    List<String> kept = Db.column(copy.resolve("state.db"),
        "SELECT substr(log_path, 6, length(log_path) - 16) FROM jobs ORDER BY id");
    assertTrue(kept.size() < names.size() && !kept.isEmpty(), compact.out());
    assertEquals(kept, jobDirectories(copy), "the copy keeps the directories of its kept jobs, and only those");
    assertEquals(List.of("jobs/" + kept.get(0) + "/output.log"), Db.column(copy.resolve("state.db"),
        "SELECT log_path FROM jobs ORDER BY id LIMIT 1"), "migrated to a path relative to the copy");
  }

  @Test
  void jobs_shows_a_log_path_that_exists_in_the_state_directory_it_reads() throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.sh"), "#!/usr/bin/env bash\necho hello\n");
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n");
    Path original = dir.resolve("original");
    assertEquals(0, CliRunner.run("--state", original.toString(), "--config", config.toString(), "run",
        backlog.toString()).exitCode());
    Path moved = dir.resolve("moved");
    Files.move(original, moved);

    CliRunner.Result jobs = CliRunner.run("--state", moved.toString(), "jobs", "--json");

    assertEquals(0, jobs.exitCode(), jobs.err());
    List<String> paths = new com.fasterxml.jackson.databind.ObjectMapper().readTree(jobs.out()).get("jobs")
        .findValuesAsText("log_path");
    assertEquals(2, paths.size(), jobs.out());
    for (String path : paths) {
      assertTrue(path.startsWith("jobs/run1-"), "relative to the state directory: " + path);
      assertTrue(Files.isRegularFile(moved.resolve(path)), path);
    }
    assertFalse(Files.exists(original));
  }
}
