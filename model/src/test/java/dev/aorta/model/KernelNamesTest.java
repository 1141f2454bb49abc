package dev.aorta.model;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kernel the Java code launches by a literal name exists in the source it names, so a kernel renamed or
 * removed in a .cu file fails here, not at the first GPU run (the compile checks see only the .cu side).
 */
class KernelNamesTest {
    private static final Pattern KERNEL = Pattern.compile(
            "extern \"C\" __global__ void (?:__launch_bounds__\\([^)]*\\)\\s*)?(\\w+)\\s*\\(");
    /** A launch's file argument and the expression after it, up to the next top-level comma. */
    private static final Pattern LAUNCH = Pattern.compile("launch(?:2d)?\\(\\s*\"(\\w+\\.cu)\",\\s*([^,]+),");
    private static final Pattern LITERAL = Pattern.compile("\"(\\w+)\"");

    @Test
    void everyLiteralKernelNameALaunchUsesIsDefinedInItsFile() throws IOException {
        Map<String, Set<String>> defined = new HashMap<>();
        List<String> launched = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = LAUNCH.matcher(Files.readString(f));
                while (m.find()) {
                    String cu = m.group(1);
                    Set<String> kernels = defined.computeIfAbsent(cu, KernelNamesTest::kernelsOf);
                    Matcher lit = LITERAL.matcher(m.group(2));
                    while (lit.find()) {
                        launched.add(cu + ":" + lit.group(1));
                        assertThat(kernels).as("%s launches %s from %s", f.getFileName(), lit.group(1), cu)
                                .contains(lit.group(1));
                    }
                }
            }
        }
        // the scan found the launches (a pattern that matched nothing would pass vacuously)
        assertThat(launched).hasSizeGreaterThan(40).contains("conv.cu:conv_im2col_f32", "layernorm.cu:layernorm_param_grad_vec4");
    }

    private static Set<String> kernelsOf(String file) {
        Set<String> names = new HashSet<>();
        Matcher m = KERNEL.matcher(Kernels.source(file));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
