"""CED audio tagging transformer (RicherMans/CED): to export the head alone, the user wraps it in a new module with
`self.forward_head = cedmodel.forward_head` (a bound method of the pretrained model, taken under torch.no_grad());
the CED model is then not a submodule, its LayerNorm/Linear weights are not parameters of the exported module, and
torch.onnx.export stops with "RuntimeError: Cannot insert a Tensor that requires grad as a constant. Consider making
it a parameter or input, or detaching the gradient" (copying `self.outputlayer = cedmodel.outputlayer` exports fine).

Source: https://github.com/RicherMans/CED/issues/8
"""
import torch
import torch.nn as nn

CLASS = "exporter-defaults"
FAMILY = "tensor_data"
DYNAMIC = {"mel": {0: "batch", 1: "tokens"}}
BLIND = "domains-21"


class AudioTransformer(nn.Module):
    def __init__(self, embed_dim=64, outputdim=527):
        super().__init__()
        self.embed_dim = embed_dim
        self.outputlayer = nn.Sequential(nn.LayerNorm(self.embed_dim),
                                         nn.Linear(self.embed_dim, outputdim))

    def forward_head(self, x: torch.Tensor) -> torch.Tensor:
        x = x.mean(1)
        return self.outputlayer(x).sigmoid()


cedmodel = None  # the pretrained CED model, loaded by the export script


class mymodel(nn.Module):
    def __init__(self):
        super(mymodel, self).__init__()
        with torch.no_grad():
            self.forward_head = cedmodel.forward_head

    def forward(self, mel):
        feat = self.forward_head(mel)
        return feat


def make_model():
    global cedmodel
    cedmodel = AudioTransformer().eval()
    return mymodel().eval()


def example_inputs():
    return (torch.randn(2, 31, 64),)


def other_inputs():
    return [(torch.randn(3, 48, 64),), (torch.randn(1, 17, 64),)]


def probe_inputs():
    return other_inputs()
