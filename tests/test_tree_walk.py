"""rewriter/tree_walk.py: ast.walk's nodes kept per module, class and function."""

import ast
import gc
import weakref

from onnxfix.rewriter.tree_walk import stored_names, walk

SOURCE = "class M:\n    def forward(self, x):\n        y = x + 1\n        del x\n        return [z for z in y]\n"


def test_the_same_nodes_in_the_same_order_as_ast_walk():
    tree = ast.parse(SOURCE)
    for node in (tree, tree.body[0], tree.body[0].body[0], tree.body[0].body[0].body[0]):
        assert list(walk(node)) == list(ast.walk(node))
        assert list(walk(node)) == list(ast.walk(node))  # the kept walk, for a module, class or function
    assert walk(tree) is walk(tree)


def test_a_tree_walked_is_freed_with_its_last_reference():
    tree = ast.parse(SOURCE)
    walk(tree), walk(tree.body[0].body[0]), stored_names(tree.body[0].body[0].body[0])
    alive = weakref.ref(tree)
    del tree
    gc.collect()
    assert alive() is None  # no table keeps every tree of a long run


def test_stored_names_are_the_stores_and_deletes_anywhere_inside():
    forward = ast.parse(SOURCE).body[0].body[0]
    assert stored_names(forward) == {"y", "x", "z"}
    assert stored_names(forward.body[0]) == {"y"}
