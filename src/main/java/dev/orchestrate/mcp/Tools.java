package dev.orchestrate.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.orchestrate.error.OrchestrateException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tools {@code orchestrate mcp} offers: the reads ({@link ReadTools}) always, the actions
 * ({@link ActionTools}) only with {@code --allow-actions}; without it they are not listed, and a
 * call of one anyway is refused as a tool error saying how to allow it.
 */
public final class Tools {
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Tool> byName = new LinkedHashMap<>();
  private final boolean allowActions;

  public Tools(Project project, boolean allowActions) {
    this.allowActions = allowActions;
    List<Tool> all = new ArrayList<>(new ReadTools(project).tools());
    all.addAll(new ActionTools(project).tools());
    all.forEach(t -> byName.put(t.name(), t));
  }

  String instructions() {
    return "orchestrate drives a backlog of work items through phases run by AI coding agents. These tools read "
        + "its state (list_items, show_item, jobs, logs, stats, agents)"
        + (allowActions ? " and act on it (add_item, approve, reject, unblock, resume_agent)."
            : "; they change nothing (the server was started without --allow-actions).");
  }

  ObjectNode list() {
    ObjectNode result = json.createObjectNode();
    ArrayNode tools = result.putArray("tools");
    for (Tool t : byName.values()) {
      if (t.action() && !allowActions) {
        continue;
      }
      ObjectNode o = tools.addObject();
      o.put("name", t.name());
      o.put("title", t.title());
      o.put("description", t.description());
      o.set("inputSchema", t.input().json());
      ObjectNode hints = o.putObject("annotations");
      hints.put("title", t.title());
      hints.put("readOnlyHint", !t.action());
      if (t.action()) {
        hints.put("destructiveHint", false);
      }
      hints.put("openWorldHint", false);
    }
    return result;
  }

  ObjectNode call(ObjectNode params) {
    JsonNode name = params.get("name");
    if (name == null || !name.isTextual()) {
      throw new RpcError(McpServer.INVALID_PARAMS, "tools/call needs the tool's name");
    }
    Tool tool = byName.get(name.asText());
    if (tool == null) {
      throw new RpcError(McpServer.INVALID_PARAMS, "unknown tool " + name.asText() + "; the tools: "
          + String.join(", ", byName.keySet()));
    }
    JsonNode args = params.get("arguments");
    if (args != null && !args.isNull() && !args.isObject()) {
      throw new RpcError(McpServer.INVALID_PARAMS, "arguments must be an object");
    }
    if (tool.action() && !allowActions) {
      return failure(tool.name() + " changes the state, and this server reads only: start it with "
          + "'orchestrate mcp --allow-actions' to allow add_item, approve, reject, unblock and resume_agent");
    }
    try {
      ObjectNode content = tool.run().apply(new Arguments(tool.name(),
          args instanceof ObjectNode o ? o : json.createObjectNode(), tool.input().names()));
      return success(content);
    } catch (OrchestrateException e) {
      // An unknown item, an item not awaiting review, a held lock: what the command line says on stderr.
      return failure(e.getMessage());
    }
  }

  private ObjectNode success(ObjectNode content) {
    ObjectNode result = json.createObjectNode();
    try {
      result.putArray("content").addObject().put("type", "text").put("text", json.writeValueAsString(content));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    result.set("structuredContent", content);
    result.put("isError", false);
    return result;
  }

  private ObjectNode failure(String message) {
    ObjectNode result = json.createObjectNode();
    result.putArray("content").addObject().put("type", "text").put("text", message);
    result.put("isError", true);
    return result;
  }
}
