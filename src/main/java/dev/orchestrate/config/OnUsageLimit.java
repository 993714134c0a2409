package dev.orchestrate.config;

import java.util.Locale;

/**
 * {@code agent.on_usage_limit}: what a run does when an agent's account reaches its usage limit
 * (docs/agents.md, "Provider limits"): end the run ({@code halt}, the default: an overnight
 * resume must be the user's choice) or pause that agent until the reset ({@code wait}, up to
 * {@code agent.max_wait}).
 */
public enum OnUsageLimit {
  HALT, WAIT;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
