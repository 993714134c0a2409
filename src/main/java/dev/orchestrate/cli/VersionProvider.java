package dev.orchestrate.cli;

import picocli.CommandLine;

/** picocli's view of {@link Version}, for {@code --version} wherever picocli parses it. */
final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    return Version.lines();
  }
}
