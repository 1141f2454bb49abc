package dev.aorta.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/aorta's choice of JVM options for analyze and report, run against a stand-in java that prints the options it
 * was given: a large plain trace gets a heap of 0.35 x its size with the serial collector (docs/analyzer.md), a
 * small one the JIT's first tier only and the serial collector with a 48 MB young generation (but with the user's
 * own collector or heap option, and in the run that trains the AOT cache, which needs G1), and a gzip trace or the user's own heap option no cap; the class path is
 * dist/lib's jars but the agent jar (loaded by -javaagent or attach, by path), found through links to the script or its
 * folder; every file and folder argument counts, whatever its name.
 */
class BinScriptHeapTest {
    @TempDir
    Path dir;

    private Path home() throws IOException {
        Path root = Paths.get("..").toAbsolutePath().normalize();
        Path home = dir.resolve("aorta");
        if (Files.exists(home)) {
            return home;
        }
        Files.createDirectories(home.resolve("bin/lib"));
        Files.createDirectories(home.resolve("lib"));
        Files.copy(root.resolve("distribution/src/dist/bin/aorta"), home.resolve("bin/aorta"));
        Files.copy(root.resolve("scripts/lib/find-java.sh"), home.resolve("bin/lib/find-java.sh"));
        Files.createFile(home.resolve("lib/aorta.jar"));
        Path jdk = dir.resolve("jdk");
        Files.createDirectories(jdk.resolve("bin"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.1\"\n");
        Path java = jdk.resolve("bin/java");
        Files.writeString(java, "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return home;
    }

    /** A sparse file: its size counts, it takes no disk. */
    private Path trace(String name, long bytes) throws IOException {
        Path p = dir.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(bytes);
        }
        return p;
    }

    private String options(Map<String, String> env, String... args) throws Exception {
        return options(home().resolve("bin/aorta"), env, args);
    }

    /** The options {@code script} (bin/aorta, or a link to it) hands java. */
    private String options(Path script, Map<String, String> env, String... args) throws Exception {
        String[] cmd = new String[args.length + 2];
        cmd[0] = "bash";
        cmd[1] = script.toString();
        System.arraycopy(args, 0, cmd, 2, args.length);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(dir.toFile());
        pb.environment().remove("AORTA_JAVA_OPTS");
        pb.environment().put("AORTA_JAVA_HOME", dir.resolve("jdk").toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out.substring(0, out.indexOf("dev.aorta.cli.AortaCli"));
    }

    @Test
    void aPlainTraceOf500MbOrMoreGetsAHeapOf035TimesItsSizeWithTheSerialCollectorAndAQuarterOfItYoung() throws Exception {
        Path t = trace("big.json", 800L << 20);

        String o = options(Map.of(), "analyze", t.toString());

        assertThat(o).contains("-XX:+UseSerialGC\n", "-Xmx280m\n", "-Xmn70m\n").doesNotContain("TieredStopAtLevel");
        assertThat(options(Map.of("AORTA_JAVA_OPTS", "-Xmn100m"), "analyze", t.toString()))
                .as("the user's young generation is kept").contains("-Xmx280m\n", "-Xmn100m\n").doesNotContain("-Xmn70m");
    }

    /** From 100 MB on, the AOT cache's method profiles (from a training run on a small sample) are not replayed. */
    @Test
    void aTraceOf100MbOrMoreReplaysNoneOfTheAotCachesProfiles() throws Exception {
        Files.createFile(home().resolve("lib/aorta.aot"));

        assertThat(options(Map.of(), "analyze", trace("mid.json", 120L << 20).toString()))
                .contains("-XX:AOTCache=", "-XX:+UnlockDiagnosticVMOptions\n", "-XX:-AOTReplayTraining\n")
                .doesNotContain("TieredStopAtLevel");
        assertThat(options(Map.of(), "analyze", trace("small.json", 20L << 20).toString()))
                .contains("-XX:AOTCache=").doesNotContain("AOTReplayTraining");
        assertThat(options(Map.of("AORTA_JAVA_OPTS", "-XX:AOTMode=off"), "analyze", trace("big.json", 800L << 20)
                .toString())).as("no cache, nothing to replay").doesNotContain("AOTReplayTraining");
    }

    @Test
    void aSmallTraceGetsTheFirstJitTierAndTheSerialCollectorWithNoHeapCap() throws Exception {
        String o = options(Map.of(), "analyze", trace("small.json", 20L << 20).toString());

        assertThat(o).contains("-XX:TieredStopAtLevel=1\n", "-XX:+UseSerialGC\n", "-Xmn48m\n").doesNotContain("-Xmx");
    }

    @Test
    void aSmallTraceKeepsTheUsersCollectorOrHeapAndTheAotTrainingRunKeepsG1() throws Exception {
        Path t = trace("small.json", 20L << 20);

        assertThat(options(Map.of("AORTA_JAVA_OPTS", "-XX:+UseParallelGC"), "analyze", t.toString()))
                .contains("-XX:+UseParallelGC\n").doesNotContain("UseSerialGC");
        assertThat(options(Map.of("AORTA_JAVA_OPTS", "-Xmx64m"), "analyze", t.toString()))
                .contains("-Xmx64m\n").doesNotContain("UseSerialGC", "-Xmn");
        assertThat(options(Map.of("AORTA_JAVA_OPTS", "-XX:AOTCacheOutput=x.aot -XX:+TieredCompilation"), "analyze",
                t.toString())).doesNotContain("UseSerialGC", "TieredStopAtLevel");
    }

    @Test
    void aGzipTraceWhoseSizeIsOnlyGuessedOrTheUsersOwnHeapOptionGetsNoCap() throws Exception {
        assertThat(options(Map.of(), "analyze", trace("big.json.gz", 80L << 20).toString()))
                .doesNotContain("-Xmx", "UseSerialGC");
        assertThat(options(Map.of("AORTA_JAVA_OPTS", "-Xmx3g"), "report", trace("big.json", 800L << 20).toString()))
                .contains("-Xmx3g\n").doesNotContain("-Xmx280m", "UseSerialGC");
    }

    @Test
    void tracesAndFoldersAreCountedTogetherWhateverTheirNames() throws Exception {
        // relative names that find would read as its expression: 60 MB, a folder of 30 MB, and a gzip file counted as
        // ten times its 3 MB: 120 MB in all, so every JIT tier; without the gzip file 90 MB, the first tier only
        trace("-rank0.json", 60L << 20);
        Files.createDirectories(dir.resolve("(ranks)"));
        trace("(ranks)/rank1.json", 30L << 20);
        trace("!rank2.json.gz", 3L << 20);

        assertThat(options(Map.of(), "analyze", "-rank0.json", "(ranks)", "!rank2.json.gz", "--window", "whole"))
                .doesNotContain("TieredStopAtLevel", "UseSerialGC");
        assertThat(options(Map.of(), "analyze", "-rank0.json", "(ranks)")).contains("-XX:TieredStopAtLevel=1\n");
    }

    @Test
    void aLinkToTheScriptOrToItsFolderFindsTheDistribution() throws Exception {
        Path home = home();
        Path link = dir.resolve("aorta-link");
        Files.createSymbolicLink(link, home.resolve("bin/aorta"));
        Path homeLink = dir.resolve("home-link");
        Files.createSymbolicLink(homeLink, home);

        String real = home.toRealPath().resolve("lib/aorta.jar").toString();
        assertThat(options(link, Map.of(), "--version")).contains("-cp\n" + real + "\n");
        assertThat(options(homeLink.resolve("bin/aorta"), Map.of(), "--version")).contains("-cp\n" + real + "\n");
    }

    @Test
    void otherCommandsGetNeither() throws Exception {
        String o = options(Map.of(), "run", trace("big.json", 800L << 20).toString());

        assertThat(o).doesNotContain("-Xmx", "UseSerialGC", "TieredStopAtLevel");
    }

    @Test
    void theClassPathListsTheLibJarsInNameOrderWithoutTheAgentJar() throws Exception {
        Path lib = home().resolve("lib");
        Files.createFile(lib.resolve("aorta-agent.jar"));
        Files.createFile(lib.resolve("zz.jar"));
        Files.createFile(lib.resolve("ab.jar"));

        String o = options(Map.of(), "--version");

        String classPath = lib.resolve("ab.jar") + ":" + lib.resolve("aorta.jar") + ":" + lib.resolve("zz.jar");
        assertThat(o).contains("-cp\n" + classPath + "\n").doesNotContain("aorta-agent.jar");
    }
}
