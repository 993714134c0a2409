package dev.orchestrate.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Model Context Protocol over stdio, written by hand on jackson-databind: JSON-RPC 2.0, one
 * message a line, read until stdin ends. The official Java SDK would bring reactor-core, Jackson 3,
 * a JSON-schema validator and their YAML parser (6.3 MB, about 3,200 classes, against the 13 classes
 * of this package) for a server that answers one request at a time; docs/mcp.md has the figures.
 *
 * <p>What it speaks: {@code initialize} (the client's protocol version when it is one of {@link
 * #PROTOCOL_VERSIONS}, else the newest of them), {@code ping}, {@code tools/list} and {@code
 * tools/call}; notifications are taken and never answered; a batch (an array, as 2025-03-26 allows)
 * is answered with an array. Protocol errors are JSON-RPC errors (unparsable JSON -32700, a message
 * that is no request -32600, an unknown method -32601, bad params or an unknown tool -32602); what a
 * tool refuses (an unknown item, an action without {@code --allow-actions}, a bad argument) is a
 * result with {@code isError: true}, so that the model reads why. Nothing but messages is written
 * to {@code out}.
 */
public final class McpServer {
  /** The versions of the protocol spoken, newest first. */
  public static final List<String> PROTOCOL_VERSIONS = List.of("2025-06-18", "2025-03-26", "2024-11-05");

  /** The longest message read; the rest of a longer line is skipped and answered with an error. */
  static final int MAX_MESSAGE_BYTES = 4 << 20;

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;

  private static final Logger LOG = LoggerFactory.getLogger(McpServer.class);

  private final ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private final Tools tools;
  private final String version;

  public McpServer(Tools tools, String version) {
    this.tools = tools;
    this.version = version;
  }

  /** Answers the messages of {@code in} on {@code out} until {@code in} ends. */
  public void serve(InputStream in, OutputStream out) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    boolean tooLong = false;
    int b;
    while (true) {
      b = in.read();
      if (b == '\n' || b == -1) {
        if (tooLong) {
          write(out, error(null, INVALID_REQUEST, "message over " + MAX_MESSAGE_BYTES + " bytes, not read"));
        } else if (line.size() > 0) {
          JsonNode answer = answer(line.toByteArray());
          if (answer != null) {
            write(out, answer);
          }
        }
        if (b == -1) {
          return;
        }
        line.reset();
        tooLong = false;
      } else if (!tooLong) {
        line.write(b);
        if (line.size() > MAX_MESSAGE_BYTES) {
          tooLong = true;
          line.reset();
        }
      }
    }
  }

  private void write(OutputStream out, JsonNode message) throws IOException {
    // Jackson's compact writer escapes every line break inside strings: one message, one line.
    out.write(json.writeValueAsBytes(message));
    out.write('\n');
    out.flush();
  }

  /** The answer to one line: a response, an array of them (a batch), or null (notifications, blank lines). */
  JsonNode answer(byte[] line) {
    JsonNode message;
    try {
      String text = new String(line, java.nio.charset.StandardCharsets.UTF_8).strip();
      if (text.isEmpty()) {
        return null;
      }
      message = json.readTree(text);
    } catch (JsonProcessingException e) {
      return error(null, PARSE_ERROR, "parse error: " + e.getOriginalMessage());
    }
    if (message instanceof ArrayNode batch) {
      if (batch.isEmpty()) {
        return error(null, INVALID_REQUEST, "an empty batch");
      }
      ArrayNode answers = json.createArrayNode();
      batch.forEach(m -> {
        JsonNode a = answerOne(m);
        if (a != null) {
          answers.add(a);
        }
      });
      return answers.isEmpty() ? null : answers;
    }
    return answerOne(message);
  }

  private JsonNode answerOne(JsonNode message) {
    if (!(message instanceof ObjectNode m)) {
      return error(null, INVALID_REQUEST, "a message must be a JSON object");
    }
    JsonNode id = m.get("id");
    boolean validId = id != null && (id.isTextual() || id.isIntegralNumber());
    if (!m.has("method")) {
      // A response to a request of ours (there are none) is taken and dropped.
      return m.has("result") || m.has("error") ? null
          : error(validId ? id : null, INVALID_REQUEST, "a message needs a method");
    }
    if (!"2.0".equals(m.path("jsonrpc").asText(null)) || !m.get("method").isTextual()
        || (id != null && !validId)) {
      return error(validId ? id : null, INVALID_REQUEST,
          "not a JSON-RPC 2.0 request (jsonrpc \"2.0\", a string method, an id that is a string or an integer)");
    }
    String method = m.get("method").asText();
    if (id == null) {
      LOG.debug("notification {}", method); // initialized, cancelled, ...: nothing to answer
      return null;
    }
    JsonNode params = m.get("params");
    if (params != null && !params.isObject()) {
      return error(id, INVALID_PARAMS, "params must be an object");
    }
    ObjectNode p = params == null ? json.createObjectNode() : (ObjectNode) params;
    try {
      return result(id, switch (method) {
        case "initialize" -> initialize(p);
        case "ping" -> json.createObjectNode();
        case "tools/list" -> tools.list();
        case "tools/call" -> tools.call(p);
        default -> throw new RpcError(METHOD_NOT_FOUND, "unknown method " + method);
      });
    } catch (RpcError e) {
      return error(id, e.code, e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("{} failed", method, e);
      return error(id, INTERNAL_ERROR, "internal error: " + e);
    }
  }

  private ObjectNode initialize(ObjectNode params) {
    String asked = params.path("protocolVersion").asText("");
    ObjectNode r = json.createObjectNode();
    r.put("protocolVersion", PROTOCOL_VERSIONS.contains(asked) ? asked : PROTOCOL_VERSIONS.get(0));
    r.putObject("capabilities").putObject("tools").put("listChanged", false);
    r.putObject("serverInfo").put("name", "orchestrate").put("version", version);
    r.put("instructions", tools.instructions());
    return r;
  }

  private ObjectNode result(JsonNode id, JsonNode result) {
    ObjectNode r = json.createObjectNode();
    r.put("jsonrpc", "2.0");
    r.set("id", id);
    r.set("result", result);
    return r;
  }

  private ObjectNode error(JsonNode id, int code, String message) {
    ObjectNode r = json.createObjectNode();
    r.put("jsonrpc", "2.0");
    r.set("id", id == null ? json.nullNode() : id);
    r.putObject("error").put("code", code).put("message", message);
    return r;
  }
}
