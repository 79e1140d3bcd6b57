"""evalui imports bfcl-eval's AST checker with a stand-in for its model registry (the registry
imports every provider SDK). The stand-in must answer exactly as the real registry does, and the
checker must ask it nothing but that one question."""

import ast
import importlib.util
from pathlib import Path

from evalui.benchmarks.bfcl.scoring import official


def _checker_source() -> tuple[str, ast.Module]:
    path = Path(importlib.util.find_spec(official._CHECKER_MODULE).origin)
    source = path.read_text()
    return source, ast.parse(source)


def test_the_checker_reads_only_underscore_to_dot_from_the_registry():
    _, tree = _checker_source()
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    uses = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "MODEL_CONFIG_MAPPING"]
    assert uses, "bfcl-eval's checker no longer consults the model registry: drop the stand-in"
    for use in uses:
        subscript = parents[use]
        attribute = parents.get(subscript)
        assert isinstance(subscript, ast.Subscript) and subscript.value is use, ast.dump(subscript)
        assert isinstance(attribute, ast.Attribute) and attribute.attr == "underscore_to_dot", (
            f"the checker now reads {ast.unparse(attribute)} from the registry; the stand-in must answer it"
        )
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == official._REGISTRY_MODULE]
    assert [alias.name for node in imports for alias in node.names] == ["MODEL_CONFIG_MAPPING"]


def test_the_stand_in_answers_as_bfcl_evals_registry_does():
    official.set_project_root()
    from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING

    stand_in = official.CheckerModelRegistry()
    for name, expected in official._UNDERSCORE_TO_DOT.items():
        assert MODEL_CONFIG_MAPPING[name].underscore_to_dot is expected, name
        assert stand_in[name].underscore_to_dot is expected, name
    # Any other name, as bfcl-eval's own runner passes, is the real registry's entry.
    other = next(name for name in MODEL_CONFIG_MAPPING if name not in official._UNDERSCORE_TO_DOT)
    assert stand_in[other] is MODEL_CONFIG_MAPPING[other]
    assert len(stand_in) == len(MODEL_CONFIG_MAPPING) and set(stand_in) == set(MODEL_CONFIG_MAPPING)


def test_the_checker_used_for_verdicts_is_bfcl_evals_own_module():
    checker = official.load_official().ast_checker
    module = official.import_ast_checker_module()
    assert checker is module.ast_checker
    assert module.__name__ == official._CHECKER_MODULE
    assert Path(module.__file__) == Path(importlib.util.find_spec(official._CHECKER_MODULE).origin)
