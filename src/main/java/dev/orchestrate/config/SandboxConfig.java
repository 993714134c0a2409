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
 * @param hidden      more paths the sandboxed processes may not even read, beside the credential
 *                    stores hidden always ({@link #ALWAYS_HIDDEN}); {@code ~/} is the user's home
 */
public record SandboxConfig(Kind kind, List<String> writable, boolean gateNetwork, List<String> hidden) {
  /**
   * Where credentials usually live under the home directory: hidden from every sandboxed process
   * (an empty directory, or an empty file, in their place) whether listed or not.
   */
  public static final List<String> ALWAYS_HIDDEN = List.of("~/.ssh", "~/.gnupg", "~/.aws", "~/.azure",
      "~/.config/gcloud", "~/.config/gh", "~/.config/glab-cli", "~/.docker", "~/.kube", "~/.netrc",
      "~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.cargo/credentials.toml", "~/.m2/settings-security.xml");

  /** Which sandbox. */
  public enum Kind {
    NONE, BWRAP;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public static final SandboxConfig NONE = new SandboxConfig(Kind.NONE, List.of(), true, List.of());

  public SandboxConfig(Kind kind, List<String> writable, boolean gateNetwork) {
    this(kind, writable, gateNetwork, List.of());
  }

  public SandboxConfig {
    Objects.requireNonNull(kind, "kind");
    writable = List.copyOf(writable);
    hidden = List.copyOf(hidden);
  }

  public boolean on() {
    return kind != Kind.NONE;
  }
}
