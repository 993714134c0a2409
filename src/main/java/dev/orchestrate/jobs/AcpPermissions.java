package dev.orchestrate.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.orchestrate.config.AcpConfig;
import dev.orchestrate.limits.SizeCap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How an ACP agent's {@code session/request_permission} is answered ({@code agent.acp.permissions},
 * {@link AcpConfig}): pure but for resolving links of paths that exist, so that a link inside the
 * worktree that points out of it counts as outside.
 */
final class AcpPermissions {

  /** The fields of a tool call's {@code rawInput} that name a path (the agents' spellings). */
  static final Set<String> PATH_FIELDS = Set.of("path", "file_path", "filepath", "filePath", "abs_path", "absPath",
      "notebook_path", "notebookPath", "target", "source", "destination", "old_path", "new_path", "dir", "directory",
      "cwd", "paths", "file_paths", "files");
  /** Paths looked at in one request: past these the request is rejected (no agent needs more). */
  static final int MAX_PATHS = 256;
  private static final int SHOWN_PATH_CHARS = 200;

  /** Allowed or not, and why, in words for the job's log. */
  record Decision(boolean allowed, String reason) {
  }

  private final AcpConfig config;
  private final Path workDir;
  private final Path jobDir;

  /**
   * @param workDir the job's working directory (the item's worktree)
   * @param jobDir  the job's own directory, where its prompt and result file are
   */
  AcpPermissions(AcpConfig config, Path workDir, Path jobDir) {
    this.config = config;
    this.workDir = real(workDir.toAbsolutePath().normalize());
    this.jobDir = real(jobDir.toAbsolutePath().normalize());
  }

  /**
   * The answer to a request about {@code toolCall} (ACP's {@code ToolCallUpdate}); {@code knownKind}
   * is the kind its earlier {@code tool_call} update gave, used when the request names none.
   */
  Decision decide(JsonNode toolCall, String knownKind) {
    switch (config.permissions()) {
      case ALLOW :
        return new Decision(true, "agent.acp.permissions: allow");
      case DENY :
        return new Decision(false, "agent.acp.permissions: deny");
      case KINDS : {
        String kind = toolCall.path("kind").isTextual() ? toolCall.path("kind").asText() : knownKind;
        if (kind != null && config.allowedKinds().contains(kind)) {
          return new Decision(true, "kind " + kind + " is allowed");
        }
        return new Decision(false, kind == null ? "the tool call names no kind"
            : "kind " + clip(kind, 40) + " is not in agent.acp.permissions");
      }
      default :
        return worktree(toolCall);
    }
  }

  private Decision worktree(JsonNode toolCall) {
    List<String> paths = new ArrayList<>();
    for (JsonNode location : toolCall.path("locations")) {
      if (location.path("path").isTextual()) {
        paths.add(location.path("path").asText());
      }
    }
    collect(toolCall.path("rawInput"), paths, 0);
    if (paths.size() > MAX_PATHS) {
      return new Decision(false, "it names more than " + MAX_PATHS + " paths");
    }
    for (String path : paths) {
      if (!inside(path)) {
        return new Decision(false, "path outside the working directory: " + SizeCap.cap(path, SHOWN_PATH_CHARS));
      }
    }
    return new Decision(true, paths.isEmpty() ? "it names no path" : "every path is inside the working directory");
  }

  /** The path fields of {@code input}, a level or two deep (an edit's list of files, say). */
  private static void collect(JsonNode input, List<String> paths, int depth) {
    if (depth > 3 || paths.size() > MAX_PATHS) {
      return;
    }
    if (input.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = input.fields(); it.hasNext() && paths.size() <= MAX_PATHS;) {
        Map.Entry<String, JsonNode> field = it.next();
        JsonNode value = field.getValue();
        if (PATH_FIELDS.contains(field.getKey()) && value.isTextual()) {
          paths.add(value.asText());
        } else if (PATH_FIELDS.contains(field.getKey()) && value.isArray()) {
          for (JsonNode item : value) {
            if (item.isTextual()) {
              paths.add(item.asText());
            } else {
              collect(item, paths, depth + 1);
            }
          }
        } else if (value.isObject() || value.isArray()) {
          collect(value, paths, depth + 1);
        }
      }
    } else if (input.isArray()) {
      for (JsonNode item : input) {
        collect(item, paths, depth + 1);
      }
    }
  }

  /** Whether {@code text}, relative to the working directory, is in it or in the job's directory. */
  boolean inside(String text) {
    if (text.isEmpty() || text.indexOf('\0') >= 0) {
      return false;
    }
    String expanded = text.startsWith("~/") || text.equals("~") ? "/nonexistent-home" + text.substring(1) : text;
    Path path;
    try {
      path = workDir.resolve(expanded).normalize();
    } catch (InvalidPathException e) {
      return false;
    }
    Path resolved = realPrefix(path);
    return resolved.startsWith(workDir) || resolved.startsWith(jobDir);
  }

  /** {@code path} with the links of its longest existing ancestor resolved (the rest does not exist yet). */
  private static Path realPrefix(Path path) {
    Path existing = path;
    List<Path> rest = new ArrayList<>();
    while (existing != null && !Files.exists(existing, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      rest.add(0, existing.getFileName());
      existing = existing.getParent();
    }
    if (existing == null) {
      return path;
    }
    Path real = real(existing);
    for (Path part : rest) {
      real = real.resolve(part);
    }
    return real.normalize();
  }

  private static Path real(Path path) {
    try {
      return path.toRealPath();
    } catch (IOException | SecurityException e) {
      return path;
    }
  }

  /** The option to answer with: the first of kind {@code allow_once} (or {@code reject_once}), else its "always" form. */
  static String option(JsonNode options, boolean allow) {
    String once = allow ? "allow_once" : "reject_once";
    String always = allow ? "allow_always" : "reject_always";
    String fallback = null;
    for (JsonNode option : options) {
      String kind = option.path("kind").asText("").toLowerCase(Locale.ROOT);
      JsonNode id = option.path("optionId");
      if (!id.isTextual() || id.asText().length() > 256) {
        continue;
      }
      if (kind.equals(once)) {
        return id.asText();
      }
      if (kind.equals(always) && fallback == null) {
        fallback = id.asText();
      }
    }
    return fallback;
  }

  /** At most {@code max} characters of {@code text} (for short values: an id, a kind, a status). */
  static String clip(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max) + "…";
  }
}
