//! HP508: code that opens NVIDIA's device nodes (`/dev/nvidia-uvm`, `/dev/nvidiactl`,
//! `/dev/nvidia0`). They are the NVIDIA kernel driver's interface: an AMD machine has none of
//! them (its GPUs are `/dev/kfd` and `/dev/dri/renderD*`, driven by amdgpu through the ROCm
//! runtime), and the driver's ioctls have no ROCm counterpart. The `open` fails at run time on
//! ROCm whatever the rest of the port does; what the code does through the node (custom UVM
//! ioctls, a vendored NVIDIA kernel module) needs another design there.

use crate::finding::Finding;
use crate::lex::Tok;
use crate::model::syntax::Src;

rule!(NVIDIA_DEVICE_NODE, "HP508", DriverApi, Remediation, Runtime,
    summary: "A source names an NVIDIA device node (`/dev/nvidia-uvm`, `/dev/nvidiactl`, `/dev/nvidia0`): the NVIDIA kernel driver's interface, absent on AMD machines.",
    why: "AMD GPUs are reached through `/dev/kfd` and `/dev/dri/renderD*` by the ROCm runtime; there is no `/dev/nvidia*` node and no counterpart of the NVIDIA driver's ioctls (UVM's, the control device's). Opening the node fails at run time on ROCm, and whatever the code does through it has to be redesigned on HIP's APIs (virtual memory: `hipMemAddressReserve`/`hipMemMap`; memory advice: `hipMemAdvise`) or left out of the ROCm build.",
    bad: "int fd = open(\"/dev/nvidia-uvm\", O_RDWR);\nioctl(fd, UVM_CUSTOM_MAP, &params);",
    good: "// ROCm: no driver node; reserve and map through HIP's virtual memory API\nhipMemAddressReserve(&ptr, size, 0, nullptr, 0);",
    fix: "Replace what the code does through the node with HIP runtime calls where one exists, or leave the feature out of the ROCm build; a vendored NVIDIA kernel module has no ROCm use.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/virtual_memory_reference.html", "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"],
);

/// One HP508 per file, at the first string literal naming `/dev/nvidia…`; the message names
/// every node the file names.
pub fn check(s: &Src, out: &mut Vec<Finding>) {
    if memchr::memmem::find(s.bytes(), b"/dev/nvidia").is_none() {
        return;
    }
    let mut first = None;
    let mut nodes: Vec<String> = Vec::new();
    for (k, t) in s.lexed.tokens.iter().enumerate() {
        // A macro's value names the node where it is used (`#define UVM_PATH "/dev/nvidia-uvm"`);
        // other directives (`#error`, `#pragma message`) open nothing.
        if t.kind != Tok::Str
            || (t.in_directive()
                && s.lexed
                    .directives
                    .get(t.directive as usize)
                    .is_none_or(|d| d.name != "define"))
        {
            continue;
        }
        let text = s.tok(k);
        let Some(at) = text.find("/dev/nvidia") else {
            continue;
        };
        let node: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '%'))
            .collect();
        if !nodes.contains(&node) {
            nodes.push(node);
        }
        first.get_or_insert(k);
    }
    let Some(k) = first else {
        return;
    };
    let list: Vec<String> = nodes.iter().map(|n| format!("`{n}`")).collect();
    out.push(s.ctx.finding(
        &NVIDIA_DEVICE_NODE,
        s.lexed.tokens[k].range(),
        format!(
            "names NVIDIA's device node {}: the NVIDIA kernel driver's interface, absent on AMD machines (`/dev/kfd`, `/dev/dri/renderD*`), and its ioctls have no ROCm counterpart",
            list.join(", ")
        ),
        Some("redo what the code does through the node with HIP runtime calls (virtual memory: hipMemAddressReserve/hipMemMap; advice: hipMemAdvise), or leave the feature out of the ROCm build".into()),
    ));
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{hazard_findings, messages};

    /// vAttention's UVM path opens the NVIDIA UVM node (its path in a macro) and drives it with
    /// the driver's ioctls; the twin names AMD's nodes, and NVIDIA's only in a comment.
    #[test]
    fn nvidia_device_nodes_are_reported_once_per_file() {
        let src = "#include <fcntl.h>\n#define CTL \"/dev/nvidiactl\"\nint uvm_fd() {\n  int fd = open(\"/dev/nvidia-uvm\", O_RDWR);\n  int ctl = open(\"/dev/nvidiactl\", O_RDWR);\n  return fd + ctl;\n}\n";
        let got: Vec<_> = hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP508")
            .collect();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].line, 2);
        assert!(
            got[0]
                .message
                .contains("`/dev/nvidiactl`, `/dev/nvidia-uvm`"),
            "{}",
            got[0].message
        );
        let amd = "int kfd() { return open(\"/dev/kfd\", O_RDWR); }\n// see /dev/nvidia0 on CUDA machines\n";
        assert!(messages(amd, "HP508").is_empty());
    }
}
