package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code orchestrate mcp} through the built launcher, driven by a real MCP client, the official Java
 * SDK's over stdio (issue 47, item 2): it lists the items, adds one, which the next run takes, and
 * approves one awaiting review; without {@code --allow-actions} the actions are neither listed nor
 * done.
 */
class McpClientIT {
  @TempDir
  Path dir;

  private void project() throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "-c", "cat > /dev/null; echo done"]
          timeout: 30s
        default_pipeline: p
        pipelines:
          p:
            review: required
            phases:
              - {name: work, instructions: "Work."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"), """
        items:
          - {id: A, title: item a}
          - {id: B, title: item b}
        """);
    Launcher.Result run = Launcher.run(dir, "run", "--no-live", "backlog.yaml");
    assertEquals(0, run.exitCode(), run.err());
  }

  private McpSyncClient client(String... extra) {
    List<String> args = new ArrayList<>(List.of("--config", dir.resolve("orchestrate.yaml").toString(), "--state",
        dir.resolve(".orchestrate").toString(), "mcp"));
    args.addAll(List.of(extra));
    StdioClientTransport transport = new StdioClientTransport(
        ServerParameters.builder(Launcher.BIN.toString()).args(args).build(), McpJsonDefaults.getMapper());
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60))
        .initializationTimeout(Duration.ofSeconds(60)).build();
    McpSchema.InitializeResult init = client.initialize();
    assertEquals("orchestrate", init.serverInfo().name());
    return client;
  }

  private static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
    return client.callTool(McpSchema.CallToolRequest.builder().name(tool).arguments(args).build());
  }

  private static String text(McpSchema.CallToolResult result) {
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> items(McpSchema.CallToolResult result) {
    return (List<Map<String, Object>>) ((Map<String, Object>) result.structuredContent()).get("items");
  }

  @Test
  void a_real_client_lists_items_adds_one_and_approves_one() throws Exception {
    project();
    try (McpSyncClient client = client("--allow-actions")) {
      List<String> tools = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
      assertTrue(tools.containsAll(List.of("list_items", "show_item", "jobs", "logs", "stats", "agents", "add_item",
          "approve", "reject", "unblock", "resume_agent")), tools.toString());

      McpSchema.CallToolResult listed = call(client, "list_items", Map.of());
      assertFalse(listed.isError(), text(listed));
      assertEquals(List.of("A:awaiting_review", "B:awaiting_review"),
          items(listed).stream().map(i -> i.get("id") + ":" + i.get("status")).toList());

      McpSchema.CallToolResult added = call(client, "add_item", Map.of("id", "C", "title", "item c",
          "description", "added through MCP", "depends_on", List.of("A")));
      assertFalse(added.isError(), text(added));
      McpSchema.CallToolResult again = call(client, "add_item", Map.of("id", "C", "title", "item c"));
      assertTrue(again.isError(), "a taken id is a tool error: " + text(again));
      assertTrue(text(again).contains("already exists"), text(again));

      McpSchema.CallToolResult approved = call(client, "approve", Map.of("ids", List.of("A")));
      assertFalse(approved.isError(), text(approved));
      assertEquals("done", items(approved).get(0).get("status"));

      McpSchema.CallToolResult refused = call(client, "approve", Map.of("ids", List.of("C")));
      assertTrue(refused.isError(), "C is not awaiting review: " + text(refused));

      McpSchema.CallToolResult log = call(client, "logs", Map.of("id", "B", "max_bytes", 100));
      assertFalse(log.isError(), text(log));
      assertTrue(text(log).contains("done"), text(log));
    }

    // The added item lives in the state, not the file, and the next run takes it (its dependency is done).
    assertFalse(Files.readString(dir.resolve("backlog.yaml")).contains("item c"), "the backlog file is untouched");
    Launcher.Result run = Launcher.run(dir, "run", "--no-live", "backlog.yaml");
    assertEquals(0, run.exitCode(), run.err());
    Launcher.Result status = Launcher.run(dir, "status");
    assertTrue(status.out().lines().anyMatch(l -> l.startsWith("A ") && l.contains("done")), status.out());
    assertTrue(status.out().lines().anyMatch(l -> l.startsWith("C ") && l.contains("awaiting_review")),
        status.out());
    assertTrue(status.out().contains("added through orchestrate mcp"), status.out());
  }

  @Test
  void without_allow_actions_the_actions_are_neither_listed_nor_done() throws Exception {
    project();
    try (McpSyncClient client = client()) {
      List<String> tools = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
      assertTrue(tools.contains("list_items"), tools.toString());
      assertFalse(tools.contains("approve"), tools.toString());
      McpSchema.CallToolResult refused = call(client, "approve", Map.of("ids", List.of("A")));
      assertTrue(refused.isError(), text(refused));
      assertTrue(text(refused).contains("--allow-actions"), text(refused));
    }
    Launcher.Result status = Launcher.run(dir, "status");
    assertTrue(status.out().lines().anyMatch(l -> l.startsWith("A ") && l.contains("awaiting_review")),
        status.out());
  }
}
