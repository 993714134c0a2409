package dev.orchestrate.config;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * {@code agent.acp}: how orchestrate, as the client of an Agent Client Protocol agent
 * ({@code agent.preset: acp}), answers the agent's {@code session/request_permission} requests.
 *
 * @param permissions  the policy
 * @param allowedKinds with {@link Permissions#KINDS}: the tool kinds allowed (ACP's {@code ToolKind}
 *                     words, {@link #TOOL_KINDS}); empty otherwise
 */
public record AcpConfig(Permissions permissions, Set<String> allowedKinds) {

  /** What a permission request is answered with. */
  public enum Permissions {
    /**
     * Allowed when every path the tool call names (its {@code locations}, the path fields of its
     * {@code rawInput}) is inside the job's working directory or the job's own directory (its
     * prompt and result file); rejected otherwise. A call that names no path is allowed.
     */
    WORKTREE,
    /** Every request rejected. */
    DENY,
    /** Every request allowed. */
    ALLOW,
    /** Allowed when the tool call's {@code kind} is one of {@link AcpConfig#allowedKinds()}. */
    KINDS
  }

  /** ACP's tool kinds (schema {@code ToolKind}). */
  public static final List<String> TOOL_KINDS = List.of("read", "edit", "delete", "move", "search", "execute",
      "think", "fetch", "switch_mode", "other");

  /** The default: {@code permissions: worktree}. */
  public static final AcpConfig DEFAULT = new AcpConfig(Permissions.WORKTREE, Set.of());

  public AcpConfig {
    Objects.requireNonNull(permissions, "permissions");
    allowedKinds = Set.copyOf(allowedKinds);
  }

  /** {@code permissions: [read, edit, ...]}. */
  public static AcpConfig kinds(Set<String> kinds) {
    return new AcpConfig(Permissions.KINDS, kinds);
  }
}
