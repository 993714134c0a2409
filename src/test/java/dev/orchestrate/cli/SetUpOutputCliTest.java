package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code workspace.setup} leaves in a worktree that git does not ignore (issue 45: an
 * {@code .egg-info}, a marker file) is never committed, even when the agent stages it, and is still
 * there for the next phase; the agent's own new files are committed and land. Real git, a script agent.
 */
class SetUpOutputCliTest {
  /** Stages everything it sees, writes a file of its own per phase and says whether set-up's marker is there. */
  private static final String AGENT = """
      #!/usr/bin/env bash
      cat > /dev/null
      if [ -f setup-marker ] && [ -f pkg.egg-info/PKG-INFO ]; then seen=present; else seen=missing; fi
      echo "$seen" > "agent-$ORCHESTRATE_PHASE.txt"
      git add -A
      echo "did $ORCHESTRATE_PHASE"
      """;

  @TempDir
  Path tmp;

  @Test
  void set_up_output_is_never_committed_and_outlives_the_reset_while_the_agents_files_land() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    Path agent = Files.writeString(tmp.resolve("agent.sh"), AGENT);
    repo.write("backlog.yaml", "items:\n  - {id: A, title: item a}\n");
    repo.write("orchestrate.yaml",
        """
            agent:
              command: ["bash", "%s"]
              timeout: 60s
            execution: {workspace: worktree, max_retries: 0}
            workspace:
              setup:
                - {name: deps, run: "mkdir -p pkg.egg-info && echo meta > pkg.egg-info/PKG-INFO && echo done > setup-marker"}
            default_pipeline: p
            pipelines:
              p:
                phases:
                  - {name: first, instructions: "First."}
                  - {name: second, instructions: "Second."}
            """
            .formatted(agent));
    repo.commitAll("project");

    CliRunner.Result run = CliRunner.runIn(repo.dir, Map.of(), "--state", repo.dir.resolve(".orchestrate").toString(),
        "--config", repo.dir.resolve("orchestrate.yaml").toString(), "run", "--no-live",
        repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.out() + run.err());

    List<String> onMain = repo.git("ls-tree", "-r", "--name-only", "main").lines().toList();
    assertTrue(onMain.contains("agent-first.txt") && onMain.contains("agent-second.txt"), onMain.toString());
    assertTrue(onMain.stream().noneMatch(f -> f.startsWith("pkg.egg-info") || f.equals("setup-marker")),
        "set-up's files are not committed: " + onMain);
    assertEquals("present", repo.git("show", "main:agent-first.txt"));
    assertEquals("present", repo.git("show", "main:agent-second.txt"),
        "the reset before the second phase kept what set-up left");
  }
}
