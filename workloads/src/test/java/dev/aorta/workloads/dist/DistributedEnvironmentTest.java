package dev.aorta.workloads.dist;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.aorta.workloads.dist.DistributedEnvironment.Launcher.AORTA;
import static dev.aorta.workloads.dist.DistributedEnvironment.Launcher.SINGLE;
import static dev.aorta.workloads.dist.DistributedEnvironment.Launcher.SLURM;
import static dev.aorta.workloads.dist.DistributedEnvironment.Launcher.TORCHRUN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DistributedEnvironmentTest {

    @Test
    void withoutLauncherVariablesItIsOneProcess() {
        DistributedEnvironment e = DistributedEnvironment.from(Map.of("HOME", "/root"));
        assertThat(e.launcher()).isEqualTo(SINGLE);
        assertThat(e.worldSize()).isEqualTo(1);
        assertThat(e.distributed()).isFalse();
    }

    @Test
    void aortaLaunchSetsTorchrunsNamesAndMarksItself() {
        DistributedEnvironment e = DistributedEnvironment.from(Map.of("RANK", "3", "LOCAL_RANK", "1", "WORLD_SIZE", "4",
                "LOCAL_WORLD_SIZE", "2", "MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29600", "AORTA_LAUNCHER", "aorta"));
        assertThat(e).isEqualTo(new DistributedEnvironment(AORTA, 3, 4, 1, 2, "10.0.0.1", 29600, 29600));
    }

    @Test
    void underTorchrunTheRendezvousStaysBesideTheAgentsStoreOnMasterPort() {
        DistributedEnvironment e = DistributedEnvironment.from(Map.of("RANK", "1", "LOCAL_RANK", "1", "WORLD_SIZE", "2",
                "LOCAL_WORLD_SIZE", "2", "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500",
                "TORCHELASTIC_USE_AGENT_STORE", "True"));
        assertThat(e.launcher()).isEqualTo(TORCHRUN);
        assertThat(e.masterPort()).isEqualTo(29500);
        assertThat(e.rendezvousPort()).isEqualTo(29501);
    }

    @Test
    void slurmRanksMeetOnTheFirstHostOfTheNodeList() {
        DistributedEnvironment e = DistributedEnvironment.from(Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "8",
                "SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "4", "SLURM_JOB_NODELIST", "gpu[07-08,11]",
                "SLURM_JOB_ID", "123456"));
        assertThat(e).isEqualTo(new DistributedEnvironment(SLURM, 5, 8, 1, 4, "gpu07", 23456, 23456));
    }

    @Test
    void slurmTasksPerNodeInItsCompressedForm() {
        DistributedEnvironment e = DistributedEnvironment.from(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "8",
                "SLURM_LOCALID", "0", "SLURM_TASKS_PER_NODE", "4(x2)", "SLURM_JOB_NODELIST", "a,b",
                "MASTER_PORT", "30000"));
        assertThat(e.localWorldSize()).isEqualTo(4);
        assertThat(e.masterAddr()).isEqualTo("a");
        assertThat(e.masterPort()).isEqualTo(30000);
    }

    @Test
    void firstHostOfSlurmNodeLists() {
        assertThat(SlurmNodeList.firstHost("node[01-04,07]")).isEqualTo("node01");
        assertThat(SlurmNodeList.firstHost("node[07,01-04]")).isEqualTo("node07");
        assertThat(SlurmNodeList.firstHost("login1,node[1-2]")).isEqualTo("login1");
        assertThat(SlurmNodeList.firstHost("rack[2-3]-gpu[010-012]")).isEqualTo("rack2-gpu010");
        assertThat(SlurmNodeList.firstHost("single")).isEqualTo("single");
        assertThatThrownBy(() -> SlurmNodeList.firstHost("node[01-04")).hasMessageContaining("'[' without ']'");
        assertThatThrownBy(() -> SlurmNodeList.firstHost("node[a-b]")).hasMessageContaining("expected a number range");
    }

    @Test
    void wrongVariablesAreNamed() {
        assertThatThrownBy(() -> DistributedEnvironment.from(Map.of("RANK", "x", "WORLD_SIZE", "2",
                "MASTER_ADDR", "h", "MASTER_PORT", "1"))).hasMessage("RANK='x' is not an integer");
        assertThatThrownBy(() -> DistributedEnvironment.from(Map.of("RANK", "2", "WORLD_SIZE", "2",
                "MASTER_ADDR", "h", "MASTER_PORT", "1"))).hasMessage("rank 2 is outside the world of 2 ranks");
        assertThatThrownBy(() -> DistributedEnvironment.from(Map.of("RANK", "0", "WORLD_SIZE", "2",
                "MASTER_PORT", "1"))).hasMessageStartingWith("MASTER_ADDR is not set");
        assertThatThrownBy(() -> DistributedEnvironment.from(Map.of("RANK", "1"))).hasMessage(
                "WORLD_SIZE is not set; expected an integer");
    }
}
