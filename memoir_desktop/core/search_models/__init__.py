"""Search models: the embedders, the downloadable ONNX models, their catalog, files and engine."""
