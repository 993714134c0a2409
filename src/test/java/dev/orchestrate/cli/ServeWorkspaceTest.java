package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.serve.DashboardServer;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.workspace.GitRepo;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dashboard's item page shows an item's git worktree, branch and integration (issue 16's data). */
class ServeWorkspaceTest {

  @TempDir
  Path tmp;

  @Test
  void an_item_page_shows_the_branch_its_last_phase_commit_and_its_integration() throws Exception {
    GitRepo repo = GitRepo.init(tmp.resolve("project"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, "#!/usr/bin/env bash\necho \"$ORCHESTRATE_PHASE\" > \"$ORCHESTRATE_ITEM_ID.txt\"\n");
    repo.write("backlog.yaml", "items:\n  - {id: W, title: In a worktree}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
        execution:
          workspace: worktree
          delete_merged_branches: false
        default_pipeline: one
        pipelines:
          one:
            verify: [{name: tests, run: "true"}]
            phases:
              - {name: build, instructions: "Build."}
        """.formatted(agent));
    repo.commitAll("backlog and config");
    Path state = repo.dir.resolve(".orchestrate");
    CliRunner.Result run = CliRunner.run(Map.of(), "--state", state.toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString(), "--quiet", "run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
    String head = repo.git("rev-parse", "orchestrate/W").strip();

    try (DashboardServer server = DashboardServer.start(TestStores.backend(state),
        new InetSocketAddress("127.0.0.1", 0), null, Clock.systemUTC())) {
      HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.port() + "/item?id=W")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, page.statusCode());
      String body = page.body();
      assertTrue(body.contains("<dt>Branch</dt><dd>orchestrate/W (from "), body);
      assertTrue(body.contains("<dt>Last phase commit</dt><dd>" + head + "</dd>"), body);
      assertTrue(body.contains("<dt>Integration</dt><dd>integrated"), body);
      // its landing: the integration gate ran on the commit that landed, which is the branch's head
      assertTrue(body.contains("<h2>Landings</h2>"), body);
      assertTrue(body.contains("<td>integrated</td><td>" + head.substring(0, 12) + "</td><td>tests passed "), body);
    }
  }
}
