package dev.orchestrate.config;

import java.util.List;
import java.util.Objects;

/**
 * {@code agent.sandbox} and its settings (docs/security.md, "The sandbox"): whether an agent, with
 * its gates and set-up steps, runs inside a bubblewrap sandbox that sees the file system read-only
 * but for its workspace, its job's scratch and the paths listed here, with a PID namespace of its
 * own.
 *
 * @param kind        {@code none} (the default) or {@code bwrap}
 * @param writable    more paths the sandboxed processes may write (tool caches: {@code ~/.npm},
 *                    {@code ~/.cache}); {@code ~/} is the user's home; a path that does not exist is
 *                    left out
 * @param gateNetwork whether gates and set-up steps keep the network (the agent always does: it
 *                    talks to its model); false cuts it for them
 */
public record SandboxConfig(Kind kind, List<String> writable, boolean gateNetwork) {
  /** Which sandbox. */
  public enum Kind {
    NONE, BWRAP;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public static final SandboxConfig NONE = new SandboxConfig(Kind.NONE, List.of(), true);

  public SandboxConfig {
    Objects.requireNonNull(kind, "kind");
    writable = List.copyOf(writable);
  }

  public boolean on() {
    return kind != Kind.NONE;
  }
}
