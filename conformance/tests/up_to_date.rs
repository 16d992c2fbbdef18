//! Every committed vectors file of the registry is what its generator produces now.

#[test]
fn committed_vectors_files_match_the_generators() {
    let mut stale = Vec::new();
    for file in hrwhash_conformance::FILES {
        let current = std::fs::read_to_string(file.full_path())
            .unwrap_or_else(|e| panic!("conformance/{} is readable: {e}", file.path));
        if current != (file.generate)() {
            stale.push(format!(
                "conformance/{} differs from the generator's output. {}\n  regenerate with: {}",
                file.path,
                file.frozen,
                file.regenerate_command()
            ));
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn the_registry_names_each_file_once() {
    let files = hrwhash_conformance::FILES;
    for (i, a) in files.iter().enumerate() {
        for b in &files[i + 1..] {
            assert_ne!(a.name, b.name);
            assert_ne!(a.path, b.path);
        }
        assert_eq!(
            Some(a.name),
            a.path
                .rsplit('/')
                .next()
                .and_then(|f| f.strip_suffix(".json"))
        );
    }
}
